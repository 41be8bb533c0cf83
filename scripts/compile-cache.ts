// Compiles the server's modules into Node's compile cache (NODE_COMPILE_CACHE) in a process of
// its own, before `npm start` runs the server: the server then finds its TypeScript already
// stripped and never loads Node's type stripper (a WebAssembly build of swc, about 20 MB that
// would stay resident for the server's life). Modules already in the cache are read from it.
import { flushCompileCache, getCompileCacheDir } from 'node:module';

if (!getCompileCacheDir()) throw new Error('NODE_COMPILE_CACHE is not set: there is no cache to fill');
const { lazyServerModules, serverModules } = await import('../src/main.ts');
await serverModules();
await lazyServerModules();
flushCompileCache();
