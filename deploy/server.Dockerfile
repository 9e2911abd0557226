# hotel-server (and the hotel-images ingestion and hotel-admin onboarding commands): built on Debian bookworm with Debian's gRPC/protobuf/abseil/libpqxx,
# shipped on bookworm-slim with only the runtime libraries, as a non-root user.
# Build from the repository root: docker build -f deploy/server.Dockerfile .
FROM debian:bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends \
      build-essential cmake ninja-build pkg-config python3 python3-pip ca-certificates \
      libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libabsl-dev \
      libpqxx-dev libgtest-dev libvips-dev libyaml-cpp-dev libcurl4-openssl-dev libssl-dev \
    && rm -rf /var/lib/apt/lists/*
# Go generates the reflection v1 and health v1 descriptors from the pinned grpc-go (gateway/go.mod).
COPY --from=golang:1.26-bookworm /usr/local/go /usr/local/go
ENV PATH=/usr/local/go/bin:$PATH
WORKDIR /src
COPY CMakeLists.txt ./
COPY gateway/go.mod gateway/go.sum gateway/
COPY gateway/tools gateway/tools
COPY proto proto
COPY server server
COPY scripts scripts
RUN cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build --target hotel-server hotel-images hotel-admin

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends \
      libgrpc++1.51 libprotobuf32 libpqxx-6.4 libabsl20220623 libvips42 libyaml-cpp0.7 libcurl4 libssl3 ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --no-create-home hotel
COPY --from=build /src/build/bin/hotel-server /src/build/bin/hotel-images /src/build/bin/hotel-admin /usr/local/bin/
USER 10001
EXPOSE 50051
ENV GRPC_LISTEN=0.0.0.0:50051
ENTRYPOINT ["/usr/local/bin/hotel-server"]
