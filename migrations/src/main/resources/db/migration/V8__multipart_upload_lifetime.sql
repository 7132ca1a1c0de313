-- A multipart upload's record is kept for --multipart-upload-lifetime after its creation (7 days
-- unless set), then deleted by whichever instance looks first; the steps of an older upload are
-- refused as unknown, and a new upload the store gives the same id takes the record over. An id
-- still has one owner while its record is live. Instances look for expired records oldest first,
-- through this index.
CREATE INDEX multipart_upload_created_at ON multipart_upload (created_at);
