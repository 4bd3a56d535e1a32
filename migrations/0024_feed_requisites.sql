-- A feed's own choice of requisites (issue #67): the subscription list's `requisites`, a JSON list
-- of kinds (images, styles, media) that replaces capture.requisites.kinds for its pages; NULL
-- follows the settings.
ALTER TABLE feeds ADD COLUMN requisites TEXT;
