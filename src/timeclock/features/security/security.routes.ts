// PLACEHOLDER: being written (issue 6 in progress).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FeatureOptions } from '../../context.ts';

export const securityRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async () => {};
