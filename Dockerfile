# tigergraph-bff image. Build: docker build -t tigergraph-bff .
# Run:   docker run --init -p 8080:8080 --env-file prod.env tigergraph-bff
#
# Pinned by Node major (the service needs Node >= 20.19); pin a digest (node:20-bookworm-slim@sha256:…)
# when builds must be byte-for-byte reproducible. No secret is ever an ARG or ENV here: everything
# secret arrives at run time (env file, orchestrator secrets), so no layer or `docker history` holds one.
ARG NODE_IMAGE=node:20-bookworm-slim

# Compiles TypeScript; needs the dev dependencies, none of which reach the final image.
# The client library is an npm workspace (packages/client, @tigergraph-bff/client): its package.json goes in
# before `npm ci`, which links it into node_modules; the build compiles it first, then the service. The browser
# SDK (packages/browser) is another workspace: the build copies its JavaScript into public/sdk/ for the page.
# The generator (packages/codegen) is bundled into the CLI. The example app (examples/react-vite) is a
# workspace too: only its package.json comes in, so npm ci sees every workspace the lock file names; its
# dependencies are all dev ones, never in the final image.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/client/package.json ./packages/client/
COPY packages/browser/package.json ./packages/browser/
COPY packages/codegen/package.json ./packages/codegen/
COPY examples/react-vite/package.json ./examples/react-vite/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY packages/client/tsconfig.build.json ./packages/client/
COPY packages/client/src ./packages/client/src
COPY packages/browser/tsconfig.build.json ./packages/browser/
COPY packages/browser/src ./packages/browser/src
COPY packages/codegen/tsconfig.build.json ./packages/codegen/
COPY packages/codegen/src ./packages/codegen/src
COPY scripts/build.mjs scripts/bundle.mjs ./scripts/
# Converted to dist/openapi.json by the build (GET /openapi.json).
COPY docs/openapi.yaml ./docs/openapi.yaml
COPY src ./src
COPY public ./public
RUN npm run build

# Production dependencies only, installed from the lock file, with npm's cache left behind.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/client/package.json ./packages/client/
COPY packages/browser/package.json ./packages/browser/
COPY packages/codegen/package.json ./packages/codegen/
COPY examples/react-vite/package.json ./examples/react-vite/
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
# HOST 0.0.0.0: inside a container the service must listen beyond loopback to be reachable at all.
# The metrics listener too, so a scraper on the container network reaches it; it is deliberately not
# EXPOSEd (`docker run -P` would publish it): publish 8080 only.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    METRICS_HOST=0.0.0.0 \
    METRICS_PORT=9464
WORKDIR /app
# Owned by root and read-only to the `node` user, so a compromised process cannot rewrite its own code.
COPY --from=deps /app/node_modules ./node_modules
# node_modules/@tigergraph-bff/client is a link to here.
COPY --from=build /app/packages/client/package.json ./packages/client/package.json
COPY --from=build /app/packages/client/dist ./packages/client/dist
COPY --from=build /app/dist ./dist
COPY --from=build /app/public ./public
# Read only with OPENAPI_ROUTE=true in production (GET /openapi.json).
COPY docs/openapi.yaml ./docs/openapi.yaml
COPY package.json ./
USER node
EXPOSE 8080
# Liveness only (/healthz): /readyz also fails while Redis or the data server is down, and a
# container restart would not fix either. The image has no curl, so Node's own fetch does the probe.
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# `node` directly, not `npm start`: npm does not forward SIGTERM, and the service drains on SIGTERM
# itself (stops taking requests, finishes in-flight ones, closes Redis). As PID 1 Node gets signals only
# through the handlers it installs, which it does; run with `--init` (compose: `init: true`) to put tini
# in front anyway, so stray child processes are reaped and a second Ctrl-C still kills.
STOPSIGNAL SIGTERM
# --heap-growing-percent=100: between full GCs V8 lets the old generation grow to 2x its live size.
# Left to itself it allows up to 4x whenever the heap limit is 2 GB or more (Node's default on a host or
# container with 8 GB of RAM or more), and under load most of that growth is garbage: at c=50 the peak
# RSS was ~195 MB over a ~22 MB live heap, ~145 MB with the flag, for some more full GCs (see
# docs/performance.md, "Peak RSS"). With a smaller heap limit V8 would allow 1.3x to 2x; the flag makes
# that 2x too. The heap limit itself is untouched (Node's, from the container's memory, or NODE_OPTIONS').
# A V8 flag Node takes only on its command line, not in NODE_OPTIONS; `npm start` and the benchmark's
# default (DEPLOYED_NODE_ARGS in bench/options.ts) run the service with the same flags.
CMD ["node", "--heap-growing-percent=100", "dist/main.js"]
