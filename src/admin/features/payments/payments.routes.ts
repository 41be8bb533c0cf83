// PLACEHOLDER: being written (issue work in progress).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FeatureOptions } from '../../context.ts';

export const paymentsRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async () => {};
