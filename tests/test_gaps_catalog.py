"""The catalog's smaller gaps against the REST spec: /v1/config without a warehouse, and register-view
(a view metadata file already in the warehouse made a view), driven by PyIceberg."""

from __future__ import annotations

import json
import uuid

import pytest
from pyiceberg.catalog import load_catalog
from pyiceberg.exceptions import BadRequestError, ViewAlreadyExistsError

from .conftest import ROOT_PASSWORD, ROOT_USER, catalog_call, make_s3_client, seed_catalog_properties
from .test_catalog_rest import view_request


@pytest.fixture(scope="module")
def warehouse(server):
    name = f"gaps-{uuid.uuid4().hex[:8]}"
    assert catalog_call(server, "POST", "/v1/warehouses", {"name": name})[0] == 200
    yield name
    assert catalog_call(server, "DELETE", f"/v1/warehouses/{name}?force=true")[0] == 204


def test_config_without_a_warehouse_answers_the_defaults(server):
    status, config = catalog_call(server, "GET", "/v1/config")
    assert status == 200, config
    assert config["defaults"]["view-endpoints-supported"] == "true"
    assert "prefix" not in config["overrides"]
    assert "POST /v1/{prefix}/namespaces/{namespace}/register-view" in config["endpoints"]
    # PyIceberg, which reads /v1/config as it starts, connects without naming a warehouse.
    properties = {k: v for k, v in seed_catalog_properties(server, "x").items() if k != "warehouse"}
    catalog = load_catalog("no-warehouse", **properties)
    assert catalog.properties.get("view-endpoints-supported") == "true"
    # An unknown warehouse is still an error.
    assert catalog_call(server, "GET", "/v1/config?warehouse=no-such-warehouse")[0] == 404


def test_register_view_makes_a_view_of_its_metadata_file(server, warehouse):
    catalog = load_catalog("gaps", **seed_catalog_properties(server, warehouse))
    catalog.create_namespace("reg")
    sql = "SELECT 1 AS id"
    status, created = catalog_call(server, "POST", f"/v1/{warehouse}/namespaces/reg/views", view_request("orig", "reg", sql))
    assert status == 200, created
    location = created["metadata-location"]
    catalog.drop_view(("reg", "orig"))  # the pointer goes, the metadata file stays

    view = catalog.register_view(("reg", "again"), location)
    assert str(view.metadata.view_uuid) == created["metadata"]["view-uuid"]
    assert view.metadata.versions[0].representations[0].root.sql == sql
    assert ("reg", "again") in catalog.list_views("reg")
    loaded = catalog.load_view(("reg", "again"))
    assert loaded.metadata.current_version_id == 1

    # The name is taken now: a second registration is refused, the view is unchanged.
    with pytest.raises(ViewAlreadyExistsError):
        catalog.register_view(("reg", "again"), location)
    # A file that is no view metadata, and one that does not exist, are bad requests; nothing registered.
    s3 = make_s3_client(server.endpoint, ROOT_USER, ROOT_PASSWORD)
    s3.put_object(Bucket=warehouse, Key="junk/v.metadata.json", Body=json.dumps({"format-version": 1}).encode())
    for bad in (f"s3://{warehouse}/junk/v.metadata.json", f"s3://{warehouse}/none/v.metadata.json"):
        with pytest.raises(BadRequestError):
            catalog.register_view(("reg", "bad"), bad)
    assert not catalog.view_exists(("reg", "bad"))
    # A location outside the warehouse is refused too.
    status, body = catalog_call(server, "POST", f"/v1/{warehouse}/namespaces/reg/register-view",
                                {"name": "bad", "metadata-location": "s3://elsewhere/v.metadata.json"})
    assert status == 400 and body["error"]["type"] == "BadRequestException"
