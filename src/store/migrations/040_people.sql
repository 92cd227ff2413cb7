-- People (issue 5 part A): the special permission to create accounts through the API, like the
-- existing can_change_user_emails one (granted with the CLI, never through the API).
ALTER TABLE users ADD COLUMN can_create_users boolean NOT NULL DEFAULT false;
