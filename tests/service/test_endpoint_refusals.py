"""An endpoint refused at registration says why accurately."""

from __future__ import annotations

import pytest

from services.app.agents.endpoints import EndpointRefused, parse_endpoint


@pytest.mark.parametrize("allow_http", [False, True])
def test_an_unsupported_scheme_is_named_as_such(allow_http):
    with pytest.raises(EndpointRefused) as refused:
        parse_endpoint("ftp://agents.example.org/turn", allow_http)
    assert refused.value.code == "bad_endpoint"
    assert "unsupported scheme ftp://" in refused.value.message
    assert ("http://" in refused.value.message.replace("https://", "")) == allow_http


def test_plain_http_is_refused_for_https_only_when_not_allowed():
    with pytest.raises(EndpointRefused) as refused:
        parse_endpoint("http://agents.example.org/turn", False)
    assert refused.value.code == "endpoint_not_allowed"
    assert parse_endpoint("http://agents.example.org/turn", True)[1] == "agents.example.org"
