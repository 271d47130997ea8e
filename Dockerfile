# The controller image (Node 24 LTS at run time; the build stage compiles TypeScript). The
# release is pinned, and hack/image-node.sh fetches the same one for the benchmarks that measure
# the controller as deployed (docs/benchmarks.md §3h): change both together.
FROM node:24.22.3-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY hack ./hack
COPY bench ./bench
RUN npx tsc -p tsconfig.build.json && node dist/hack/bundle.js && npm prune --omit=dev

FROM node:24.22.3-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY package.json ./
COPY crds ./crds
# The image's `node` user, by number: Kubernetes can only check runAsNonRoot against a numeric user.
USER 1000:1000
# The controller's bundle (hack/bundle.ts): only the code the CLI reaches, minified; ~55 MiB
# less RSS than the tsc build. `dev` and `demo` load the tsc build in dist/ beside it.
# --heap-growing-percent=15: V8 lets the old generation grow to 1.15x the live heap after a full
# collection instead of its dynamic factor (up to several times): 40-60 MiB less RSS at
# 10,000 PetSets x 3 pods, idle CPU unchanged (docs/benchmarks.md section 4, "Memory").
# --max-semi-space-size=16: the young generation of Node 20's V8; Node 24's grows its
# semi-spaces to 64 MiB with this heap cap, which put 10,000 x 3 above 300 MiB six minutes into
# its populate (docs/benchmarks.md section 3h). NODE_OPTIONS does not accept the first flag,
# hence here; the manifests' NODE_OPTIONS sets the heap cap.
ENTRYPOINT ["node", "--heap-growing-percent=15", "--max-semi-space-size=16", "dist/src/cli/petset.bundle.js"]
CMD ["controller"]
