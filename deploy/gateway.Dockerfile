# hotel-gateway: Go build with the pinned tools from gateway/go.mod, shipped on bookworm-slim
# as a non-root user. Build from the repository root: docker build -f deploy/gateway.Dockerfile .
# tools/ converts the OpenAPI document; CMakeLists.txt declares the version it carries.
FROM golang:1.26-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends protobuf-compiler libprotobuf-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY CMakeLists.txt ./
COPY proto proto
COPY gateway gateway
COPY tools tools
COPY scripts/build-gateway.sh scripts/build-gateway.sh
RUN CGO_ENABLED=0 bash scripts/build-gateway.sh

FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --no-create-home hotel
COPY --from=build /src/build/bin/hotel-gateway /usr/local/bin/hotel-gateway
COPY --from=build /src/build/bin/grpc-health-probe /usr/local/bin/grpc-health-probe
USER 10001
# 8080: the API; 9464: GET /metrics, for the monitoring namespace only (NetworkPolicy).
EXPOSE 8080 9464
ENV HTTP_LISTEN=0.0.0.0:8080 GATEWAY_METRICS_LISTEN=0.0.0.0:9464
ENTRYPOINT ["/usr/local/bin/hotel-gateway"]
