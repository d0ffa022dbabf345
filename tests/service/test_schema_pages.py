"""The /schema pages work offline. Every script, style and
icon they load is served by this server (from the flask-swagger-ui
package), and no page of the OpenAPI UI names another host."""

from __future__ import annotations

import re
from urllib.parse import urljoin

import httpx
import pytest

pytestmark = pytest.mark.asyncio(loop_scope="session")

_REFS = re.compile(r"""(?:src|href)\s*=\s*["']([^"']+)["']""", re.I)


async def test_schema_pages_load_their_assets_from_this_server(server):
    async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as http:
        for page in ("/schema", "/schema/swagger"):
            r = await http.get(page)
            assert r.status_code == 200, (page, r.status_code)
            assert r.headers["content-type"].startswith("text/html")
            html = r.text
            head = html.split("<body", 1)[0]
            refs = _REFS.findall(head)
            assert len(refs) >= 4, refs  # css, two scripts, icon
            for ref in refs:
                url = urljoin(server.base_url + page, ref)
                assert url.startswith(server.base_url + "/"), f"{page} loads {ref} from another host"
                asset = await http.get(url)
                assert asset.status_code == 200 and len(asset.content) > 100, (ref, asset.status_code)
            assert "cdn" not in head.lower() and "unpkg" not in head.lower(), head
            assert "SwaggerUIBundle" in html
        bundle = await http.get("/static/swagger-ui/swagger-ui-bundle.js")
        assert bundle.headers["content-type"].split(";")[0] in ("application/javascript", "text/javascript")
        # Pages whose code only a CDN has are not offered at all.
        for page in ("/schema/redoc", "/schema/elements", "/schema/rapidoc"):
            assert (await http.get(page)).status_code == 404, page
        spec = await http.get("/schema/openapi.json")
        assert spec.status_code == 200 and spec.json()["info"]["title"] == "Hanamichi"
