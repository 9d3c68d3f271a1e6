# The platform API server (8081), the web console it serves under /console/, and its Prometheus
# metrics (9092). Build from the repository root:
#   docker build -f deploy/docker/api-server.Dockerfile -t gsp/api-server:0.1.0 .
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.base.json tsconfig.json ./
COPY packages ./packages
COPY services ./services
# Install scripts are not needed: the only native pieces ship prebuilt inside their packages.
# The web console is built here too: the API server serves packages/web-console/dist under /console/.
RUN npm ci --ignore-scripts \
 && npx tsc -b services/api-server \
 && npm run build -w packages/web-console \
 && npm prune --omit=dev --ignore-scripts

FROM node:20-slim AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8081 METRICS_PORT=9092
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/packages ./packages
COPY --from=build /app/services ./services
USER node
EXPOSE 8081 9092
CMD ["node", "services/api-server/dist/src/server.js"]
