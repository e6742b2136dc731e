-- Why an admin turned a developer's submission down: shown to the developer, the submission
-- stays (disabled) until they withdraw it or an admin enables or deletes it.
ALTER TABLE resources ADD COLUMN rejection TEXT;
