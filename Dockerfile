# The controller image (Node 24 LTS at run time; the build stage compiles TypeScript).
FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY hack ./hack
COPY bench ./bench
RUN npx tsc -p tsconfig.build.json && npm prune --omit=dev

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY package.json ./
COPY crds ./crds
# The image's `node` user, by number: Kubernetes can only check runAsNonRoot against a numeric user.
USER 1000:1000
ENTRYPOINT ["node", "dist/src/cli/petset.js"]
CMD ["controller"]
