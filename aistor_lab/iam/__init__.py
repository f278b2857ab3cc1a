"""Identity and access management: users and access keys, named policies in the AWS IAM grammar,
and the allow/deny decision each request asks for (``IAM.is_allowed``).

``arns`` names the resources the APIs pass; ``action_names`` the action names policies may use,
with their aliases; ``policy`` is the grammar and evaluator; ``users`` the service, keeping its
state in the object store's system bucket. ``session_credentials`` (temporary S3 credentials, as
the catalog vends them) and ``bearer`` (the catalog's OAuth2 tokens) are stateless tokens sealed by
``sealing`` under a key in that bucket; ``IAM.sessions`` and ``IAM.bearer_tokens``.
The secrets kept in that bucket (user secret keys, that key) are sealed by ``store.keyring`` under a
master key that is not in it.
"""

from .arns import (
    ADMIN_RESOURCE,
    ALL_BUCKETS,
    ALL_WAREHOUSES,
    TABLE,
    VIEW,
    entry_arns,
    namespace_arns,
    s3_arn,
    table_arn,
    warehouse_arn,
)
from .bucket_policy import is_public, parse_bucket_policy
from .builtin import BUILTIN_POLICIES
from .errors import (
    IAMError,
    InvalidArgument,
    MalformedPolicy,
    NoSuchPolicy,
    NoSuchUser,
    PolicyInUse,
    UserAlreadyExists,
)
from .policy import Policy, is_allowed
from .principals import ANONYMOUS
from .users import DISABLED, ENABLED, IAM

__all__ = [
    "ADMIN_RESOURCE",
    "ALL_BUCKETS",
    "ALL_WAREHOUSES",
    "ANONYMOUS",
    "BUILTIN_POLICIES",
    "DISABLED",
    "ENABLED",
    "IAM",
    "TABLE",
    "VIEW",
    "IAMError",
    "InvalidArgument",
    "MalformedPolicy",
    "NoSuchPolicy",
    "NoSuchUser",
    "Policy",
    "PolicyInUse",
    "UserAlreadyExists",
    "entry_arns",
    "is_allowed",
    "is_public",
    "namespace_arns",
    "parse_bucket_policy",
    "s3_arn",
    "table_arn",
    "warehouse_arn",
]
