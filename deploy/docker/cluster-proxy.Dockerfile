# The cluster proxy: kubectl's HTTPS entry point (8443), the agents' tunnel endpoint (8444)
# and Prometheus metrics (9090). Build from the repository root:
#   docker build -f deploy/docker/cluster-proxy.Dockerfile -t gsp/cluster-proxy:0.1.0 .
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.base.json tsconfig.json ./
COPY packages ./packages
COPY services ./services
RUN npm ci --ignore-scripts \
 && npx tsc -b services/cluster-proxy \
 && npm prune --omit=dev --ignore-scripts

FROM node:20-slim AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8443 TUNNEL_PORT=8444 METRICS_PORT=9090
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/packages ./packages
COPY --from=build /app/services ./services
USER node
EXPOSE 8443 8444 9090
CMD ["node", "services/cluster-proxy/dist/src/server.js"]
