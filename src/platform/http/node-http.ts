// Node's http module, taken the CommonJS way. An ESM import of node:http reads every export to
// build its namespace, and its lazy WebSocket exports then load Node's fetch implementation
// (undici): about 2.5 MB of heap and 13 MB of resident memory that the server never uses (issue 27).
// Import this instead of `node:http` (types may still come from `import type`).
export const nodeHttp = process.getBuiltinModule('node:http');
