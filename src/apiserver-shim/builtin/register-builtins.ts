/** Every built-in resource the shim serves. */
import type { ResourceRegistry } from "../registry/resource-registry.js";
import type { ObjectStore } from "../storage/object-store.js";
import type { Clock } from "../time.js";
import {
  coreEventsDefinition,
  eventsV1Definition,
  leasesDefinition,
  nodesDefinition,
} from "./cluster-resources.js";
import { configMapsDefinition, secretsDefinition, serviceAccountsDefinition } from "./config-resources.js";
import { controllerRevisionsDefinition } from "./controller-revisions.js";
import { crdsDefinition } from "./crds.js";
import { jobsDefinition } from "./jobs.js";
import { namespacesDefinition } from "./namespaces.js";
import { podsDefinition } from "./pods.js";
import { servicesDefinition } from "./services.js";
import { statefulSetsDefinition } from "./statefulsets.js";
import { storageClassDefinition } from "./storage-classes.js";
import { pvcDefinition, pvDefinition } from "./storage-resources.js";
import { volumeAttachmentDefinition } from "./volume-attachments.js";
import { volumeAttributesClassDefinition } from "./volume-attributes-classes.js";

export function registerBuiltins(registry: ResourceRegistry, objects: ObjectStore, clock: Clock): void {
  for (const def of [
    namespacesDefinition,
    podsDefinition,
    servicesDefinition(objects),
    jobsDefinition,
    configMapsDefinition,
    secretsDefinition,
    serviceAccountsDefinition,
    pvcDefinition(objects),
    pvDefinition,
    storageClassDefinition,
    volumeAttachmentDefinition,
    volumeAttributesClassDefinition,
    nodesDefinition,
    coreEventsDefinition,
    leasesDefinition,
    eventsV1Definition,
    statefulSetsDefinition,
    controllerRevisionsDefinition,
    crdsDefinition(() => clock.now()),
  ])
    registry.register(def);
}
