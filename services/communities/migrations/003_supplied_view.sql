-- What a community itself supplied about a person it added by identifier (docs/COMMUNITIES.md
-- "What a community sees of a person it added"): the item's name (or the name derived from its
-- identifier), seed fields and identifiers, as it sent them. NULL for memberships that did not
-- come from a bulk add (seed files, the operator). While the person's profile is not public, the
-- community's reads (roster, member read, its search documents, its enrichment runs) show this and
-- nothing of the profile itself.
ALTER TABLE communities.memberships ADD COLUMN supplied jsonb;
