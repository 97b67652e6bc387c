#!/usr/bin/env python3
# Prints the reference SigV4 signatures that Tests/MirrorObjectStoreTests/SigV4SignerTests.swift
# holds as data ("botocore"): botocore's S3SigV4Auth signs each request at 2026-12-07T12:36:00Z.
# Run once when a case is added: python3 scripts/sigv4-botocore-fixtures.py
import hashlib, datetime
from unittest import mock
from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
cases = [
  ("put-object", "PUT", "http://127.0.0.1:8333/gallery/mirror/images/smiling-face-3f2a9c.png", b"hello", [("Content-Type","image/png"),("Cache-Control","public, max-age=31536000, immutable"),("Content-MD5","XUFAKrxLKna5cZ2REBfFkg=="),("x-amz-meta-sha256","2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")], None),
  ("get-key-with-space-and-utf8", "GET", "https://s3.eu-west-3.amazonaws.com/my.bucket/albums/caf%C3%A9%20terrace/index.html", b"", [], None),
  ("session-token-head", "HEAD", "https://gallery.s3.us-east-1.amazonaws.com/manifest.json", b"", [], "FQoGZXIvYXdzEXAMPLETOKEN//+="),
  ("multipart-part", "PUT", "http://127.0.0.1:8333/gallery/big.jpg?partNumber=2&uploadId=abc%2Fdef", b"x"*64, [("Content-MD5","abc==")], None),
]
for name, method, url, body, headers, token in cases:
    req = AWSRequest(method=method, url=url, data=body)
    for k, v in headers: req.headers[k] = v
    req.headers["x-amz-content-sha256"] = hashlib.sha256(body).hexdigest()
    region = "eu-west-3" if "eu-west-3" in url else "us-east-1"
    auth = S3SigV4Auth(Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", token), "s3", region)
    with mock.patch("botocore.auth.get_current_datetime", return_value=datetime.datetime(2026, 12, 7, 12, 36, 0)):
        auth.add_auth(req)
    print(name, region, req.headers["Authorization"])
    print("  date:", req.headers["X-Amz-Date"])
