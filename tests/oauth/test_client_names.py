"""A client's self-asserted name and the URLs the consent page shows must read as they are
stored: bidi controls, line breaks and invisible characters are refused at registration and in
metadata documents, and names stored before the rule are cleaned when shown (sweep finding 3:
`Claude` + RIGHT-TO-LEFT OVERRIDE + `loot.evil` read "Claudelive.tool" on the consent page)."""

from __future__ import annotations

import pytest

from mesq.auth.oauth.authorization import list_grants, load_pending
from mesq.auth.oauth.clients import registered_client
from mesq.auth.oauth.keys import client_key
from tests.oauth.helpers import REDIRECT_URI, Pkce, query_of
from tests.oauth.test_metadata_documents import JSON, _app, _authorize, _document, documents  # noqa: F401

RLO, PDF = "\u202e", "\u202c"


@pytest.mark.parametrize(
    ("name", "needle"),
    [
        (f"Claude{RLO}loot.evil{PDF}", "U+202E, U+202C"),  # override + pop
        ("Claude\u2067evil\u2069", "U+2067, U+2069"),  # isolate
        ("Claude\u200f", "U+200F"),  # RIGHT-TO-LEFT MARK
        ("Claude\u061c", "U+061C"),  # ARABIC LETTER MARK
        ("Claude\n\nOfficial MeSQ app", "U+000A"),
        ("Claude\r\nOfficial", "U+000D, U+000A"),
        ("Claude\u2028Official", "U+2028"),  # LINE SEPARATOR (Zl)
        ("Claude\u2029Official", "U+2029"),  # PARAGRAPH SEPARATOR (Zp)
        ("Claude\tCode", "U+0009"),
        ("Claude\x85Code", "U+0085"),  # NEXT LINE (C1)
        ("Cla\u200bude", "U+200B"),  # ZERO WIDTH SPACE
        ("Claude\ufeff", "U+FEFF"),
        ("Claude\U000e0069\U000e0067", "U+E0069, U+E0067"),  # invisible tag characters
    ],
)
def test_hidden_characters_in_client_name_are_refused(client, name, needle):
    response = client.post("/oauth/register", json={"client_name": name, "redirect_uris": [REDIRECT_URI]})
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["error"] == "invalid_client_metadata"
    assert "client_name" in body["error_description"] and needle in body["error_description"]


def test_stacked_combining_marks_are_refused(client):
    zalgo = "C" + "\u0336\u0317\u0300" * 20 + "laude"
    response = client.post("/oauth/register", json={"client_name": zalgo, "redirect_uris": [REDIRECT_URI]})
    assert response.status_code == 400 and "combining marks" in response.json()["error_description"]


@pytest.mark.parametrize(
    "name",
    [
        "Claude",
        "工作助手 · 备忘",
        "Tiếng Việt app",  # precomposed
        "Tie\u0302\u0301ng Vie\u0323\u0302t",  # decomposed: two marks stacked
        "کتاب\u200cخانه",  # Persian needs ZERO WIDTH NON-JOINER
        "Agent \U0001f469\u200d\U0001f4bb",  # an emoji ZWJ sequence
        "עוזר MCP",  # right-to-left letters are text, not controls
        "x" * 200,
    ],
)
def test_ordinary_names_are_kept(register, name):
    assert register(client_name=name)["client_name"] == name


@pytest.mark.parametrize(
    "uri",
    [
        f"https://app{RLO}live.example/cb",
        f"https://app.example/{RLO}bc",
        "http://127.0.0.1:8765/cb\u2028x",
        "https://app.example/c\u00a0b",  # NO-BREAK SPACE
        "https://app\u200b.example/cb",
    ],
)
def test_hidden_characters_in_redirect_uris_are_refused(client, uri):
    """The consent page names the destination host: it must read as the browser will go."""
    response = client.post("/oauth/register", json={"client_name": "Agent", "redirect_uris": [uri]})
    assert response.status_code == 400 and response.json()["error"] == "invalid_redirect_uri", response.text


def test_hidden_characters_in_a_metadata_document_client_id_are_refused(client):
    response = client.get(
        "/oauth/authorize",
        params={"client_id": f"https://evil.example/{RLO}moc.edualc/client.json", "response_type": "code"},
        follow_redirects=False,
    )
    assert response.status_code == 400 and response.json()["error"] == "invalid_client"
    assert "format characters" in response.json()["error_description"]


def test_a_metadata_document_with_a_bidi_name_is_refused(services, documents):  # noqa: F811
    base, served = documents
    url = f"{base}/client.json"
    served["/client.json"] = (200, JSON, _document(url, client_name=f"Claude{RLO}loot.evil{PDF}"))
    with _app(services, allow_loopback=True) as client:
        response = _authorize(client, url)
    assert response.status_code == 400 and response.json()["error"] == "invalid_client"
    assert "U+202E" in response.json()["error_description"]


def test_a_name_stored_before_the_rule_is_shown_clean(flow):
    """Registrations made before the refusal keep their record; what a person sees is cleaned:
    format characters go, a line break becomes a space."""
    items = flow.services.items
    record = items.get(client_key(flow.client_id))
    assert record is not None
    items.put({**record, "clientName": f"Claude{RLO}loot.evil{PDF}\n\nOfficial MeSQ app"})
    client = registered_client(items, flow.client_id)
    assert client is not None and client.client_name == "Claudeloot.evil Official MeSQ app"
    pkce = Pkce.new()
    response = flow.authorize(pkce)
    pending = load_pending(items, query_of(response.headers["location"])["request"])
    assert pending.client_name == "Claudeloot.evil Official MeSQ app"
    assert flow.exchange(flow.approve(response)["code"], pkce).status_code == 200
    # a grant stored with the old name is cleaned on the Connected-apps page too
    grant = list_grants(items, flow.user_id)[0]
    assert grant["clientName"] == "Claudeloot.evil Official MeSQ app"
