# The aistor-lab image: JupyterLab with the aistor-lab extension (the service, the side panel, the
# magics), PySpark with Java and the offline Iceberg jar kit, the notebooks and the TPC-H sample data.
# Built from this checkout with its pinned dependencies. `docker run -p 9000:9000 aistor-lab` runs the
# service alone; compose.yaml runs JupyterLab with it.
FROM python:3.11-slim
# Java for Spark; Node.js builds the side panel when the checkout has no prebuilt copy.
RUN apt-get update && apt-get install -y --no-install-recommends openjdk-17-jre-headless nodejs npm \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/aistor-lab
COPY . .
RUN pip install --no-cache-dir -c requirements.lock '.[spark]' \
    && aistor-lab spark-jars build
ENV AISTOR_DATA_DIR=/data \
    AISTOR_SAMPLE_DATA=/opt/aistor-lab/sample-data
VOLUME /data
EXPOSE 9000 8888
CMD ["aistor-lab", "server", "--address", "0.0.0.0:9000", "--data", "/data"]
