export { openStore, SqlJsStore, type StoreOptions } from './sqlJsStore';
export type * from './types';
