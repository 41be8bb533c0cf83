import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FeatureOptions } from '../../context.ts';

export const dictionariesRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (_app, _opts) => {};
