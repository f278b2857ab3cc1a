"""The action names policies may use, and which names authorize a request.

Known names are MinIO's (the ``s3:``, ``s3tables:``, ``admin:``, ``kms:`` and ``sts:`` actions its
policy grammar defines, so a policy copied from the MinIO or AIStor documents is accepted even where
this server does not implement the call) plus this server's own older names. A name nobody defines
is refused when a policy is written (policy.py), as MinIO does, never accepted to grant nothing.

A request names one action; ``request_names`` adds the other names that authorize it:
- aliases, equivalent both ways: AIStor's warehouse names and the TableBucket names of AWS S3
  Tables (``s3tables:CreateWarehouse`` == ``s3tables:CreateTableBucket``); MinIO's ``UpdateTable``
  / ``UpdateView`` and the ``...MetadataLocation`` names for a commit; AIStor's ``admin:DeltaSharing*``
  names and this server's older ``admin:...TableShare...`` names;
- broader names that also cover it: ``admin:DeltaSharing`` (all share management);
  ``s3tables:CreateTable`` for a register, ``s3tables:GetTable`` for a metrics report and
  ``s3tables:GetWarehouse`` for the catalog config, as this server asked for before;
  ``s3:ListBucket`` for ``s3:ListBucketVersions`` and ``s3:GetObject`` for ``s3:GetObjectVersion``
  (a read of a named version), as MinIO authorizes them: a policy written for MinIO, its built-in
  ``readonly`` among them, reads versions there and here alike; ``s3:PutBucketCors`` for MinIO's
  ``s3:DeleteBucketCors``, as S3 authorizes that call.
A statement matches a request when it matches any of these names, for Deny as for Allow.
"""

from __future__ import annotations

import functools

from .patterns import PatternSet

_S3 = """
    AbortMultipartUpload BypassGovernanceRetention CreateBucket DeleteBucket DeleteBucketCors
    DeleteBucketPolicy DeleteObject DeleteObjectAnnotation DeleteObjectTagging DeleteObjectVersion
    DeleteObjectVersionTagging ForceDeleteBucket GetBucketCors GetBucketLocation GetBucketNotification
    GetBucketObjectLockConfiguration GetBucketPolicy GetBucketPolicyStatus GetBucketQOS GetBucketTagging
    GetBucketVersioning GetEncryptionConfiguration GetInventoryConfiguration GetLifecycleConfiguration
    GetObject GetObjectAnnotation GetObjectAttributes GetObjectLegalHold GetObjectRetention
    GetObjectTagging GetObjectVersion GetObjectVersionAnnotationForReplication GetObjectVersionAttributes
    GetObjectVersionForReplication GetObjectVersionTagging GetReplicationConfiguration HeadBucket
    ListAllMyBuckets ListBucket ListBucketMultipartUploads ListBucketVersions ListMultipartUploadParts
    ListObjectAnnotations ListenBucketNotification ListenNotification PutBucketCors PutBucketNotification
    PutBucketObjectLockConfiguration PutBucketPolicy PutBucketQOS PutBucketTagging PutBucketVersioning
    PutEncryptionConfiguration PutInventoryConfiguration PutLifecycleConfiguration PutObject
    PutObjectAnnotation PutObjectFanOut PutObjectLegalHold PutObjectRetention PutObjectTagging
    PutObjectVersionTagging PutReplicationConfiguration ReplicateDelete ReplicateObject
    ReplicateObjectAnnotation ReplicateTags ResetBucketReplicationState RestoreObject UpdateObjectEncryption
"""
# AWS S3 names MinIO's grammar lacks, for the ACL, public access block and ownership operations.
_S3_ACCESS = """
    GetBucketAcl PutBucketAcl GetObjectAcl PutObjectAcl GetObjectVersionAcl PutObjectVersionAcl
    GetBucketPublicAccessBlock PutBucketPublicAccessBlock GetBucketOwnershipControls PutBucketOwnershipControls
"""
_S3TABLES = """
    CreateFunction CreateNamespace CreateTable CreateView DeleteFunction DeleteNamespace DeleteTable
    DeleteTableAnnotation DeleteTableEncryption DeleteTablePolicy DeleteView GetConfig GetFunction
    GetNamespace GetTable GetTableAnnotation GetTableData GetTableEncryption GetTableMaintenanceConfiguration
    GetTableMaintenanceJobStatus GetTableMetadataLocation GetTablePolicy GetView ListFunctions
    ListNamespaces ListTableAnnotations ListTables ListTagsForTable ListTagsForWarehouse ListViews
    PutTableAnnotation PutTableData PutTableEncryption PutTableMaintenanceConfiguration PutTablePolicy
    RegisterFunction RegisterTable RegisterView RenameFunction RenameTable RenameView TableMetrics TagTable
    TagWarehouse UntagTable UntagWarehouse UpdateFunction UpdateNamespaceProperties UpdateTable
    UpdateTableMetadataLocation UpdateView UpdateViewMetadataLocation
"""
# Warehouse-level s3tables actions: AIStor's name and the AWS TableBucket name, one pair each.
_WAREHOUSE_ALIASES = """
    CreateWarehouse CreateTableBucket  DeleteWarehouse DeleteTableBucket  GetWarehouse GetTableBucket
    ListWarehouses ListTableBuckets  DeleteWarehouseEncryption DeleteTableBucketEncryption
    DeleteWarehousePolicy DeleteTableBucketPolicy  GetWarehouseEncryption GetTableBucketEncryption
    GetWarehouseMaintenanceConfiguration GetTableBucketMaintenanceConfiguration
    GetWarehousePolicy GetTableBucketPolicy  PutWarehouseEncryption PutTableBucketEncryption
    PutWarehouseMaintenanceConfiguration PutTableBucketMaintenanceConfiguration
    PutWarehousePolicy PutTableBucketPolicy
"""
_ADMIN = """
    AddUserToGroup AttachUserOrGroupPolicy BandwidthMonitor CancelBatchJob ChangeMyPassword ClusterInfo
    ConfigUpdate ConsoleLog CreatePolicy CreateServiceAccount CreateUser DataUsageInfo Decommission
    DeletePolicy DeleteUser DeltaSharing DescribeBatchJob DisableGroup DisableUser DistJobStatus DriveInfo
    DriveList EnableGroup EnableUser ExportBucketMetadata ExportIAM ForceUnlock GenerateBatchJob
    GetBucketCompression GetBucketQuota GetBucketTarget GetGroup GetPolicy GetUser Heal
    ImportBucketMetadata ImportIAM InspectData InventoryControl KMSBackup KMSCreateKey KMSEnable
    KMSKeyRotate KMSKeyStatus KMSRestore LicenseInfo ListBatchJobs ListGroups ListServiceAccounts
    ListTemporaryAccounts ListTier ListUserPolicies ListUsers NodeInfo NodeList OBDInfo PoolInfo PoolList
    Profiling Prometheus ReadAPILogs ReadAlerts ReadAuditLogs ReadErrorLogs Rebalance RemoveServiceAccount
    RemoveUserFromGroup ReplicationDiff ServerInfo ServerTrace ServerUpdate ServiceCordon ServiceFreeze
    ServiceRestart ServiceStop SetBucketCompression SetBucketQuota SetBucketTarget SetInfo SetTier
    SiteReplicationAdd SiteReplicationDisable SiteReplicationInfo SiteReplicationOperation
    SiteReplicationRemove SiteReplicationResync StartBatchJob StorageInfo TablesReplicationAdd
    TablesReplicationCatalogAdmin TablesReplicationInfo TablesReplicationRemove
    TablesReplicationStartFailover TopLocksInfo UpdatePolicyAssociation UpdateServiceAccount
    GetTableShareAudit
"""
# Share management: AIStor's name and this server's older one, one pair each.
_SHARING_ALIASES = """
    DeltaSharingListShares ListTableShares  DeltaSharingCreateShare CreateTableShare
    DeltaSharingGetShare GetTableShare  DeltaSharingUpdateShare UpdateTableShare
    DeltaSharingDeleteShare DeleteTableShare  DeltaSharingListTokens ListTableShareTokens
    DeltaSharingCreateToken CreateTableShareToken  DeltaSharingDeleteToken RevokeTableShareToken
"""
_KMS = """
    API AssignPolicy AuditLog CreateKey DeleteIdentity DeleteKey DeletePolicy DescribeIdentity DescribePolicy
    DescribeSelfIdentity Enable ErrorLog GetPolicy ImportKey KeyRotate KeyStatus ListIdentities ListKeys
    ListPolicies Metrics SetPolicy Status Version
"""
_STS = """
    AssumeRole AssumeRoleLDAPIdentity AssumeRoleWithClientCertificate AssumeRoleWithClientGrants
    AssumeRoleWithCustomToken AssumeRoleWithWebIdentity
"""


def _names(prefix: str, words: str) -> list[str]:
    return [f"{prefix}:{word}" for word in words.split()]


def _pairs(prefix: str, words: str) -> list[tuple[str, str]]:
    names = _names(prefix, words)
    return list(zip(names[::2], names[1::2], strict=True))


_ALIAS_PAIRS = [
    *_pairs("s3tables", _WAREHOUSE_ALIASES),
    ("s3tables:UpdateTable", "s3tables:UpdateTableMetadataLocation"),
    ("s3tables:UpdateView", "s3tables:UpdateViewMetadataLocation"),
    *_pairs("admin", _SHARING_ALIASES),
]

KNOWN_ACTIONS: frozenset[str] = frozenset({
    *_names("s3", _S3), *_names("s3", _S3_ACCESS), "s3express:CreateSession",
    *_names("s3tables", _S3TABLES), *_names("admin", _ADMIN), *_names("kms", _KMS), *_names("sts", _STS),
    *(name for pair in _ALIAS_PAIRS for name in pair),
})

_DELTA_SHARING = "admin:DeltaSharing"
# Lower-cased request action -> the other names that authorize it (see the module docstring).
_ALSO: dict[str, list[str]] = {
    "s3tables:registertable": ["s3tables:CreateTable"],
    "s3tables:tablemetrics": ["s3tables:GetTable"],
    "s3tables:getconfig": ["s3tables:GetWarehouse", "s3tables:GetTableBucket"],
    "admin:gettableshareaudit": [_DELTA_SHARING],
    "s3:listbucketversions": ["s3:ListBucket"],
    "s3:getobjectversion": ["s3:GetObject"],
    "s3:getobjectversionacl": ["s3:GetObjectAcl"],
    "s3:putobjectversionacl": ["s3:PutObjectAcl"],
    "s3:deletebucketcors": ["s3:PutBucketCors"],
}
for _first, _second in _ALIAS_PAIRS:
    _ALSO.setdefault(_first.lower(), []).append(_second)
    _ALSO.setdefault(_second.lower(), []).append(_first)
for _name in _names("admin", _SHARING_ALIASES):
    _ALSO[_name.lower()].append(_DELTA_SHARING)


@functools.lru_cache(maxsize=512)
def request_names(action: str) -> tuple[str, ...]:
    """``action`` and every other name that authorizes a request for it (case as given)."""
    return (action, *_ALSO.get(action.lower(), ()))


_KNOWN_LOWER = frozenset(name.lower() for name in KNOWN_ACTIONS)


@functools.lru_cache(maxsize=1024)
def is_known(pattern: str) -> bool:
    """Whether a policy's action (``s3:GetObject``, ``s3:Get*``, ``*``) names or matches a known action."""
    if pattern.lower() in _KNOWN_LOWER:
        return True
    if "*" not in pattern and "?" not in pattern:
        return False
    matcher = PatternSet([pattern], ignore_case=True)
    return any(matcher.matches(name, {}) for name in KNOWN_ACTIONS)
