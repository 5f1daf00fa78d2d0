#!/usr/bin/env python3
"""Checks Parlour's OAuth 2.0 for apps with a client that is not Parlour's: Authlib's
`OAuth2Session` (on requests) makes the authorization URL with PKCE (S256), exchanges the code
the player approved, uses the token it gets, and revokes it, against a live server.

This script plays both sides: the app (through Authlib) and the player's browser (the calls
the page /play/authorize makes: `GET /v1/oauth/authorize`, then `POST /v1/oauth/authorizations`
with the player's own token).

Usage: oauth-check.py BASE_URL   (tools/oauth-check.sh starts a server and runs it)
"""

import sys
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

import requests
from authlib.common.security import generate_token
from authlib.integrations.base_client import OAuthError
from authlib.integrations.requests_client import OAuth2Session

CLIENT_ID = "checker.example"
REDIRECT_URI = "http://127.0.0.1:9/callback"
SCOPE = "games:read games:play"
ALL_SCOPES = {"games:read", "games:play", "games:host", "webhooks:manage", "account:manage"}

base = ""
http = requests.Session()


def fail(message, response=None):
    if response is not None:
        request = response.request
        message += (
            f"\n  request: {request.method} {request.url}"
            f"\n  answer:  {response.status_code} {response.headers.get('content-type')}"
            f"\n  {response.text[:2000]}"
        )
    raise SystemExit(f"FAILED: {message}")


def check(condition, message, response=None):
    if not condition:
        fail(message, response)


def ok(message):
    print(f"ok: {message}", flush=True)


def expect(response, status, what):
    """The answer has `status`; its JSON body (or None) is returned."""
    check(response.status_code == status, f"{what}: expected {status}", response)
    if not response.content:
        return None
    try:
        return response.json()
    except ValueError:
        fail(f"{what}: the body is not JSON", response)


def api(method, path, token=None, **kwargs):
    headers = kwargs.pop("headers", {})
    if token:
        headers["authorization"] = f"Bearer {token}"
    return http.request(method, base + path, headers=headers, timeout=30, **kwargs)


def query_of(url):
    return dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))


def new_app():
    """The app's side: an Authlib session that knows nothing of Parlour but its metadata."""
    return OAuth2Session(
        client_id=CLIENT_ID,
        redirect_uri=REDIRECT_URI,
        scope=SCOPE,
        code_challenge_method="S256",
        default_timeout=30,
    )


def approve(ann, app, metadata, verifier, announce=True):
    """The player's browser: from the app's authorization URL to the redirect back to the app.
    Returns (redirect_to, state)."""
    url, state = app.create_authorization_url(metadata["authorization_endpoint"], code_verifier=verifier)
    query = urlsplit(url).query
    fields = query_of(url)
    check(fields.get("code_challenge_method") == "S256" and fields.get("code_challenge"), f"Authlib's URL {url} has no S256 challenge")

    answer = expect(api("GET", f"/v1/oauth/authorize?{query}"), 200, "the page's look at the request")
    check(answer.get("client_id") == CLIENT_ID, f"client_id is {answer.get('client_id')!r}, not {CLIENT_ID!r}")
    check(answer.get("redirect_uri") == REDIRECT_URI, f"redirect_uri is {answer.get('redirect_uri')!r}, not {REDIRECT_URI!r}")
    check(answer.get("redirect_origin") == "http://127.0.0.1:9", f"redirect_origin is {answer.get('redirect_origin')!r}, not 'http://127.0.0.1:9'")
    check(answer.get("scopes") == ["games:read", "games:play"], f"scopes are {answer.get('scopes')!r}, not ['games:read', 'games:play']")
    check(answer.get("state") == state, f"state is {answer.get('state')!r}, not the app's {state!r}")
    deny_to = answer.get("deny_to") or ""
    check(deny_to.startswith(REDIRECT_URI + "?"), f"deny_to {deny_to!r} does not go back to {REDIRECT_URI}")
    denied = query_of(deny_to)
    check(denied.get("error") == "access_denied" and denied.get("state") == state, f"deny_to {deny_to!r} lacks error=access_denied and the state")
    if announce:
        ok(f"GET /v1/oauth/authorize?… shows the page {CLIENT_ID}, {answer['redirect_origin']}, {answer['scopes']}, and a deny_to with access_denied")

    created = expect(api("POST", "/v1/oauth/authorizations", ann, json=fields), 201, "the player's Allow")
    code = created.get("code") or ""
    check(code.startswith("oacode_"), f"the code {code!r} does not begin with oacode_")
    check(created.get("expires_at"), f"the authorization has no expires_at: {created}")
    redirect_to = created.get("redirect_to") or ""
    check(redirect_to.startswith(REDIRECT_URI + "?"), f"redirect_to {redirect_to!r} does not go back to {REDIRECT_URI}")
    back = query_of(redirect_to)
    check(back.get("code") == code, f"redirect_to {redirect_to!r} does not carry the code {code!r}")
    check(back.get("state") == state, f"redirect_to {redirect_to!r} carries state {back.get('state')!r}, not the app's {state!r}")
    if announce:
        ok("POST /v1/oauth/authorizations (Allow) is 201 with an oacode_ code, and redirect_to carries the code and the app's state")
    return redirect_to, state


def exchange(app, metadata, redirect_to, state, verifier):
    """The app's side: Authlib exchanges the code at the token endpoint."""
    return app.fetch_token(metadata["token_endpoint"], authorization_response=redirect_to, state=state, code_verifier=verifier)


def refused(app, metadata, redirect_to, state, verifier, what):
    try:
        token = exchange(app, metadata, redirect_to, state, verifier)
    except OAuthError as error:
        check(error.error == "invalid_grant", f"{what}: Authlib saw error {error.error!r} ({error.description}), not invalid_grant")
        return error
    fail(f"{what}: the token endpoint gave a token: {dict(token)}")


def forbidden(app, method, path, body, scope):
    """A call the app's token has no scope for: 403 insufficient-scope, naming the scope."""
    response = app.request(method, base + path, json=body)
    problem = expect(response, 403, f"{method} {path} with the app's token")
    check(response.headers.get("content-type", "").startswith("application/problem+json"), f"{method} {path}: not application/problem+json", response)
    check(str(problem.get("type", "")).endswith("/problems/insufficient-scope"), f"{method} {path}: type {problem.get('type')!r} does not end /problems/insufficient-scope", response)
    check(problem.get("scope") == scope, f"{method} {path}: scope is {problem.get('scope')!r}, not {scope!r}", response)
    challenge = response.headers.get("www-authenticate", "")
    check('error="insufficient_scope"' in challenge and f'scope="{scope}"' in challenge, f'{method} {path}: WWW-Authenticate is {challenge!r}, without error="insufficient_scope" and scope="{scope}"', response)
    ok(f"{method} {path} with it is 403 insufficient-scope naming {scope}, with WWW-Authenticate: {challenge}")


def unauthorized(token, what):
    expect(api("GET", "/v1/me", token), 401, f"GET /v1/me with {what}")
    ok(f"GET /v1/me with {what} is 401")


def main():
    global base
    base = sys.argv[1].rstrip("/")

    # The player, and what the server says of its OAuth.
    ann = expect(api("POST", "/v1/accounts", json={"name": "Ann"}), 201, "POST /v1/accounts")["token"]["secret"]
    ok("Ann has an account and its token")
    metadata = expect(api("GET", "/.well-known/oauth-authorization-server"), 200, "the metadata (RFC 8414)")
    check(metadata.get("issuer") == base, f"issuer is {metadata.get('issuer')!r}, not {base!r}")
    for endpoint in ("authorization_endpoint", "token_endpoint", "revocation_endpoint"):
        check(str(metadata.get(endpoint, "")).startswith(base + "/"), f"{endpoint} is {metadata.get(endpoint)!r}, not on {base}")
    check(urlsplit(metadata["authorization_endpoint"]).path == "/play/authorize", f"authorization_endpoint is {metadata['authorization_endpoint']}, not /play/authorize")
    check("code" in metadata.get("response_types_supported", []), f"response_types_supported {metadata.get('response_types_supported')!r} lacks code")
    check("S256" in metadata.get("code_challenge_methods_supported", []), f"code_challenge_methods_supported {metadata.get('code_challenge_methods_supported')!r} lacks S256")
    missing = ALL_SCOPES - set(metadata.get("scopes_supported", []))
    check(not missing, f"scopes_supported {metadata.get('scopes_supported')!r} lacks {sorted(missing)}")
    ok(f"GET /.well-known/oauth-authorization-server names the endpoints on {base}, S256 and the five scopes")

    # Requests the page must refuse.
    request = {
        "response_type": "code",
        "client_id": CLIENT_ID,
        "redirect_uri": REDIRECT_URI,
        "scope": "games:read nonsense",
        "state": "s1",
        "code_challenge": "A" * 43,
        "code_challenge_method": "S256",
    }
    response = api("GET", "/v1/oauth/authorize?" + urlencode(request, quote_via=quote))
    problem = expect(response, 400, "an unknown scope")
    check(str(problem.get("type", "")).endswith("/problems/invalid-authorization-request"), f"an unknown scope: type is {problem.get('type')!r}", response)
    back = query_of(problem.get("redirect_to") or "")
    check(str(problem.get("redirect_to", "")).startswith(REDIRECT_URI + "?") and back.get("error") == "invalid_scope" and back.get("state") == "s1",
          "an unknown scope: redirect_to does not go back to the app with error=invalid_scope and the state", response)
    ok("an unknown scope is 400 invalid-authorization-request, with a redirect_to back to the app carrying invalid_scope")
    request.update(scope=SCOPE, redirect_uri="http://app.example/callback")
    response = api("GET", "/v1/oauth/authorize?" + urlencode(request, quote_via=quote))
    problem = expect(response, 400, "a plain-http redirect_uri off loopback")
    check(str(problem.get("type", "")).endswith("/problems/invalid-authorization-request") and "redirect_to" not in problem,
          "a bad redirect_uri: the problem is not invalid-authorization-request without redirect_to", response)
    ok("a plain-http redirect_uri off loopback is 400 with no redirect_to (the page goes nowhere)")

    # First grant: Authlib makes the URL, the player allows, Authlib exchanges the code.
    app = new_app()
    verifier = generate_token(48)
    redirect_to, state = approve(ann, app, metadata, verifier)
    answers = []
    app.register_compliance_hook("access_token_response", lambda r: answers.append(r) or r)
    token = exchange(app, metadata, redirect_to, state, verifier)
    check(answers and answers[-1].status_code == 200, "the token endpoint did not answer 200", answers[-1] if answers else None)
    first = token.get("access_token") or ""
    check(first.startswith("acct_"), f"the access token {first[:12]!r}… does not begin with acct_")
    check(str(token.get("token_type", "")).lower() == "bearer", f"token_type is {token.get('token_type')!r}, not Bearer")
    check(token.get("scope") == SCOPE, f"the token's scope is {token.get('scope')!r}, not {SCOPE!r}")
    ok(f"Authlib's fetch_token took the code and the verifier: a Bearer acct_ token with scope {token['scope']!r}")

    # What the app may and may not do with it.
    response = app.get(base + "/v1/me")
    me = expect(response, 200, "GET /v1/me with the app's token")
    check(me.get("account", {}).get("name") == "Ann", f"GET /v1/me names {me.get('account')!r}, not Ann", response)
    tokens = me.get("tokens", [])
    check(len(tokens) == 1 and tokens[0].get("current"), f"GET /v1/me with games scopes lists {len(tokens)} tokens, not only its own", response)
    check(tokens[0].get("app") == CLIENT_ID and tokens[0].get("scopes") == ["games:read", "games:play"] and tokens[0].get("signed_in_with") == "app",
          f"its token is described as {tokens[0]}, not app {CLIENT_ID}, scopes games:read games:play, signed_in_with app", response)
    ok("GET /v1/me with the app's token is 200: Ann, and only its own token (app checker.example, its two scopes)")
    forbidden(app, "POST", "/v1/me/games", {"game": "girl", "seats": [{"kind": "me"}, {"kind": "anyone"}]}, "games:host")
    forbidden(app, "POST", "/v1/webhooks", {"url": "https://hooks.example/parlour", "events": ["game.finished"]}, "webhooks:manage")

    # The same code again: refused, and the token it gave is revoked.
    refused(app, metadata, redirect_to, state, verifier, "the code used a second time")
    ok("the same code exchanged again is refused with invalid_grant")
    unauthorized(first, "the first token (its code was replayed)")

    # An unknown code, sent as a browser app would: refused, and readable from any origin.
    response = http.post(
        metadata["token_endpoint"],
        data={"grant_type": "authorization_code", "code": "oacode_unknown", "redirect_uri": REDIRECT_URI, "client_id": CLIENT_ID, "code_verifier": generate_token(48)},
        headers={"origin": "https://app.example"},
        timeout=30,
    )
    error = expect(response, 400, "an unknown code")
    check(error.get("error") == "invalid_grant", f"an unknown code: error is {error.get('error')!r}, not invalid_grant", response)
    check(response.headers.get("access-control-allow-origin") in ("*", "https://app.example"), "an unknown code: no Access-Control-Allow-Origin for https://app.example", response)
    ok("an unknown code is 400 invalid_grant, with Access-Control-Allow-Origin for a browser app")

    # Second grant: a wrong verifier is refused, the right one works, and Authlib revokes it.
    app = new_app()
    verifier = generate_token(48)
    redirect_to, state = approve(ann, app, metadata, verifier, announce=False)
    ok("a second grant approved")
    refused(app, metadata, redirect_to, state, generate_token(48), "a wrong code_verifier")
    ok("a wrong code_verifier is refused with invalid_grant")
    second = exchange(app, metadata, redirect_to, state, verifier)["access_token"]
    expect(app.get(base + "/v1/me"), 200, "GET /v1/me with the second token")
    ok("the right code_verifier then gets a token that works")
    response = app.revoke_token(metadata["revocation_endpoint"], token=second)
    expect(response, 200, "Authlib's revoke_token")
    ok("Authlib's revoke_token is 200")
    unauthorized(second, "the revoked token")

    # The player's side: the app is listed, and removing it revokes its tokens.
    app = new_app()
    verifier = generate_token(48)
    redirect_to, state = approve(ann, app, metadata, verifier, announce=False)
    third = exchange(app, metadata, redirect_to, state, verifier)["access_token"]
    ok("a third grant approved and exchanged")
    response = api("GET", "/v1/me/apps", ann)
    apps = expect(response, 200, "GET /v1/me/apps with Ann's own token").get("apps", [])
    listed = [a for a in apps if a.get("client_id") == CLIENT_ID]
    check(len(listed) == 1, f"GET /v1/me/apps lists {CLIENT_ID} {len(listed)} times", response)
    check(listed[0].get("scopes") == ["games:read", "games:play"] and listed[0].get("granted_at"), f"{CLIENT_ID} is listed as {listed[0]}", response)
    check(listed[0].get("tokens") == 1, f"{CLIENT_ID} is listed with {listed[0].get('tokens')!r} tokens, not its 1 live one", response)
    ok(f"GET /v1/me/apps lists {CLIENT_ID} with its scopes and 1 live token")
    expect(api("GET", "/v1/me/apps", third), 403, "GET /v1/me/apps with the app's own token (no account:manage)")
    ok("GET /v1/me/apps with the app's token is 403 (it needs account:manage)")
    expect(api("DELETE", f"/v1/me/apps/{CLIENT_ID}", ann), 204, f"DELETE /v1/me/apps/{CLIENT_ID}")
    ok(f"DELETE /v1/me/apps/{CLIENT_ID} is 204")
    unauthorized(third, "the removed app's token")
    apps = expect(api("GET", "/v1/me/apps", ann), 200, "GET /v1/me/apps after removing the app").get("apps", [])
    check(all(a.get("client_id") != CLIENT_ID for a in apps), f"{CLIENT_ID} is still listed: {apps}")
    ok(f"GET /v1/me/apps no longer lists {CLIENT_ID}")
    expect(api("GET", "/v1/me", ann), 200, "GET /v1/me with Ann's own token, after all that")
    ok("Ann's own token still works")

    print("OAuth check passed")


if __name__ == "__main__":
    main()
