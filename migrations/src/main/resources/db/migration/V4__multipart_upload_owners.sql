-- The object each multipart upload was created for, learned from the store's answer to
-- CreateMultipartUpload. S3 stores such as S3Proxy find an upload by its id alone, whatever key
-- a request names, so a writer fenced on one key could otherwise complete, abort or add parts to
-- another key's upload. Every gateway instance reads this table, so an id created through one
-- is checked the same way through any other. Rows are never updated: an id has one owner.
CREATE TABLE multipart_upload (
    upload_id  text        PRIMARY KEY,
    resource   text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
