-- Resource keys now carry the sub-delimiters ! $ & ' ( ) * , : = @ literally, as every store reads
-- them: /b/k%3Dv and /b/k=v are one object. A fence recorded under the old encoded form must not be
-- lost under the new one, or a writer holding an older token would be let through once. Each such
-- fence is carried to its new key, never lowering one already there (the highest token wins, with
-- its holder). The old rows stay: fence rows are never deleted, and nothing looks them up any more.
-- Old keys held escapes only as upper-case %XX triplets, so replacing these triplets in turn cannot
-- split or join an escape.
INSERT INTO fence AS f (resource, token, holder)
SELECT DISTINCT ON (new_key) new_key, token, holder
FROM (
    SELECT token, holder,
           replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(resource,
               '%21', '!'), '%24', '$'), '%26', '&'), '%27', ''''), '%28', '('), '%29', ')'),
               '%2A', '*'), '%2C', ','), '%3A', ':'), '%3D', '='), '%40', '@') AS new_key
    FROM fence
    WHERE resource ~ '%(21|24|26|27|28|29|2A|2C|3A|3D|40)'
) AS renamed
ORDER BY new_key, token DESC
ON CONFLICT (resource) DO UPDATE
    SET token = EXCLUDED.token, holder = EXCLUDED.holder, updated_at = now()
    WHERE f.token < EXCLUDED.token;
