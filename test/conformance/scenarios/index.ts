/** Every conformance scenario, in the order the suite runs them. */
import type { Scenario } from "../types.js";
import { applyScenarios } from "./apply.js";
import { appsScenarios } from "./apps.js";
import { configMapScenarios } from "./configmaps.js";
import { coreResourceScenarios } from "./core-resources.js";
import { gcDiscoveryScenarios } from "./gc-discovery.js";
import { jobScenarios } from "./jobs.js";
// from "./gc-discovery.js";
import { listWatchScenarios } from "./list-watch.js";
import { petSetScenarios } from "./petsets.js";
import { statefulSetControllerScenarios } from "./statefulset-controller.js";
import { storageScenarios } from "./storage.js";
import { volumeAttributesClassScenarios } from "./volume-attributes-classes.js";

export const SCENARIOS: Scenario[] = [
  ...configMapScenarios,
  ...coreResourceScenarios,
  ...appsScenarios,
  ...petSetScenarios,
  ...applyScenarios,
  ...listWatchScenarios,
  ...gcDiscoveryScenarios,
  ...jobScenarios,
  ...statefulSetControllerScenarios,
  ...storageScenarios,
  ...volumeAttributesClassScenarios,
];
