# The game-server control plane (8080) and its Prometheus metrics (9090). Build from the repository root:
#   docker build -f deploy/docker/control-plane.Dockerfile -t gsp/control-plane .
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.base.json tsconfig.json ./
COPY packages ./packages
COPY services ./services
# bcrypt's install script only checks its bundled prebuild (linux-x64 glibc), so it can be skipped.
RUN npm ci --ignore-scripts \
 && npx tsc -b services/control-plane \
 && npm prune --omit=dev --ignore-scripts

FROM node:20-slim AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 METRICS_PORT=9091
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/packages ./packages
COPY --from=build /app/services ./services
USER node
EXPOSE 8080 9091
CMD ["node", "services/control-plane/dist/src/server.js"]
