export * from "./defaults.js";
export * from "./lifecycle.js";
export * from "./meta.js";
export * from "./names.js";
export * from "./node-failure.js";
export * from "./petset.js";
export * from "./petset-version.js";
