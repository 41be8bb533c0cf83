// Response serializers compiled on a route's first answer with a given status, not at start.
// Fastify compiles every documented response of every route when the server starts (over 200
// serializers for both services, with fast-json-stringify's own Ajv instance for each schema with a
// union): 5.7 MB of heap measured in a heap snapshot of an idle server, most of it for routes and
// error statuses that a given instance rarely or never answers.
import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

type SerializerFactory = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']>;

/** Fastify's own serializer factory (fast-json-stringify's), required as Fastify requires it. */
const { SerializerSelector } = createRequire(import.meta.resolve('fastify'))('@fastify/fast-json-stringify-compiler') as { SerializerSelector: () => SerializerFactory };

/** The serializer factory of every context: Fastify's, each serializer compiled when first called. */
export const buildSerializer: SerializerFactory = (externalSchemas, serializerOpts) => {
  const compile = SerializerSelector()(externalSchemas, serializerOpts);
  return (route) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data) => (serialize ??= compile(route))(data);
  };
};
