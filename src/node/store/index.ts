export { openStore, SqlJsStore, type StoreOptions } from './sqlJsStore';
export type * from '../../core/ports/sessionStore';
