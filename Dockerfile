# The aistor-lab image: the service (S3, /_iceberg, /delta-sharing) and, with the workbench
# installed, JupyterLab beside it. Built from this checkout with its pinned dependencies.
FROM python:3.11-slim
RUN apt-get update && apt-get install -y --no-install-recommends make openjdk-17-jre-headless \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/aistor-lab
COPY . .
RUN pip install --no-cache-dir -c requirements.lock .
ENV AISTOR_DATA_DIR=/data
VOLUME /data
EXPOSE 9000
CMD ["aistor-lab", "server", "--address", "0.0.0.0:9000", "--data", "/data"]
