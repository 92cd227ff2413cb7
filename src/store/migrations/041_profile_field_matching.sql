-- Custom profile fields may be used to match users in typeahead (use_for_user_matching).
ALTER TABLE custom_profile_fields ADD COLUMN use_for_user_matching boolean NOT NULL DEFAULT false;
