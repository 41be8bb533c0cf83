import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FeatureOptions } from '../../context.ts';

export const authenticatorRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (_app, _opts) => {};
