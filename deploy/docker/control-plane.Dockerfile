# The game-server control plane (8080), the game-server panel it serves under /panel/, and its
# Prometheus metrics (9091). Build from the repository root:
#   docker build -f deploy/docker/control-plane.Dockerfile -t gsp/control-plane:0.1.0 .
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.base.json tsconfig.json ./
COPY packages ./packages
COPY services ./services
# bcrypt's install script only checks its bundled prebuild (linux-x64 glibc), so it can be skipped.
# The panel is built here too, before the prune removes Vite: the control plane serves
# packages/gameserver-panel/dist under /panel/ (copied with ./packages below).
RUN npm ci --ignore-scripts \
 && npx tsc -b services/control-plane \
 && npm run build -w packages/gameserver-panel \
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
