# The tunnel agent, run inside a customer cluster: dials out to the cluster proxy's tunnel port,
# serves /healthz and /readyz on 8080 and Prometheus metrics on 9093. Build from the repository root:
#   docker build -f deploy/docker/tunnel-agent.Dockerfile -t gsp/tunnel-agent:0.1.0 .
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.base.json tsconfig.json ./
COPY packages ./packages
COPY services ./services
RUN npm ci --ignore-scripts \
 && npx tsc -b services/tunnel-agent \
 && npm prune --omit=dev --ignore-scripts

FROM node:20-slim AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 METRICS_PORT=9093
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/packages ./packages
COPY --from=build /app/services ./services
USER node
EXPOSE 8080 9093
CMD ["node", "services/tunnel-agent/dist/src/server.js"]
