import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FeatureOptions } from '../../context.ts';

export const adminsRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (_app, _opts) => {};
