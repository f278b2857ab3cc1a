# The aistor-lab image: JupyterLab with the aistor-lab extension (the service, the side panel, the
# magics), PySpark with Java and the offline Iceberg jar kit, the notebooks and the TPC-H sample data.
# Built from this checkout with its pinned dependencies. `docker run -p 9000:9000 aistor-lab` runs the
# service alone; compose.yaml runs JupyterLab with it.
# Bookworm: Spark 3.5 wants Java 17, which Debian 13 (trixie, the default python:3.11-slim) no longer ships.
FROM python:3.11-slim-bookworm
# Java for Spark. Node.js builds the side panel; its bundler needs Node 20, newer than bookworm's.
RUN apt-get update && apt-get install -y --no-install-recommends openjdk-17-jre-headless \
    && rm -rf /var/lib/apt/lists/*
COPY --from=node:20-bookworm-slim /usr/local/bin/node /usr/local/bin/node
WORKDIR /opt/aistor-lab
COPY . .
RUN pip install --no-cache-dir -c requirements.lock '.[spark,notebooks]' \
    && aistor-lab spark-jars build
ENV AISTOR_DATA_DIR=/data \
    AISTOR_SAMPLE_DATA=/opt/aistor-lab/sample-data
VOLUME /data
EXPOSE 9000 8888
CMD ["aistor-lab", "server", "--address", "0.0.0.0:9000", "--data", "/data"]
