"""Temporary credentials opened and issued from memory: what is reused, for how long, and that an
expired session is refused whether or not it was opened before."""

from __future__ import annotations

import pytest

from aistor_lab.auth.errors import AuthError
from aistor_lab.iam.sealing import TokenSealer
from aistor_lab.iam.session_credentials import Sessions
from aistor_lab.store import LocalStore
from aistor_lab.store.keyring import Keyring

READ = {"Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::bucket/table/*"}]}
WRITE = {"Statement": [{"Effect": "Allow", "Action": "s3:PutObject", "Resource": "arn:aws:s3:::bucket/table/*"}]}


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def sessions(tmp_path):
    store = LocalStore(tmp_path)
    clock = Clock()
    yield Sessions(TokenSealer(store, Keyring("root-user", "root-password-123")), clock), clock
    store.close()


def test_issued_credentials_are_reused_for_the_same_user_and_policy_until_half_their_life(sessions):
    sessions, clock = sessions
    first = sessions.reusable("alice", READ, 3600)
    assert sessions.reusable("alice", READ, 3600) == first
    assert sessions.reusable("bob", READ, 3600).access_key != first.access_key
    assert sessions.reusable("alice", WRITE, 3600).access_key != first.access_key
    assert sessions.reusable("alice", READ, 60).access_key != first.access_key
    clock.now += 1799
    assert sessions.reusable("alice", READ, 3600) == first
    clock.now += 2  # less than half of the hour left: new ones, which then are the ones reused
    renewed = sessions.reusable("alice", READ, 3600)
    assert renewed.access_key != first.access_key and renewed.expires_at == clock.now + 3600
    assert sessions.reusable("alice", READ, 3600) == renewed


def test_an_opened_session_still_expires_and_a_tampered_token_never_opens(sessions):
    sessions, clock = sessions
    session = sessions.issue("alice", READ, 60)
    opened = sessions.open(session.token)
    assert (opened.access_key, opened.secret_key, opened.parent, opened.expires_at) == (
        session.access_key, session.secret_key, "alice", session.expires_at)
    assert opened.policy.document == session.policy.document
    assert sessions.open(session.token) is opened  # from memory the second time
    clock.now += 60
    with pytest.raises(AuthError) as caught:
        sessions.open(session.token)
    assert caught.value.code == "ExpiredToken"
    tampered = session.token[:-2] + ("AA" if not session.token.endswith("AA") else "BB")
    with pytest.raises(AuthError) as caught:
        sessions.open(tampered)
    assert caught.value.code == "InvalidToken"
