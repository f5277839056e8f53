import { buildCli } from './helpers/driver.js';

/** Every server attack drives the real built `debug-gym serve`: build it (and what it imports) once. */
export function setup(): void {
  buildCli();
}
