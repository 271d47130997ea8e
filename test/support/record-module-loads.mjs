// `node --import ./test/support/record-module-loads.mjs ...`: appends the URL of every module the
// process resolves (one a line) to the file named by PETSET_MODULE_LOG. Used by
// test/e2e/controller-bundle.test.ts to show the controller's bundle loads nothing beside itself.
import { register } from "node:module";

const hooks = `
import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.PETSET_MODULE_LOG, result.url + "\\n");
  return result;
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
