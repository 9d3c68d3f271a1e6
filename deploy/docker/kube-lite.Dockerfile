# kube-lite, the Kubernetes-API stand-in, for docker-compose only (production uses a real
# cluster). Build from the repository root:
#   docker build -f deploy/docker/kube-lite.Dockerfile -t gsp/kube-lite:0.1.0 .
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.base.json tsconfig.json ./
COPY packages ./packages
COPY services ./services
RUN npm ci --ignore-scripts \
 && npx tsc -b packages/kube-lite \
 && npm prune --omit=dev --ignore-scripts

FROM node:20-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/packages ./packages
RUN mkdir /data && chown node /data
USER node
EXPOSE 6443
CMD ["node", "packages/kube-lite/dist/src/cli.js", "--host", "0.0.0.0", "--port", "6443", "--data-dir", "/data"]
