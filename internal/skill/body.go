package skill

// ReadBody reads the SKILL.md at path (at most DefaultMaxSize bytes) and
// returns its body: the text after the frontmatter.
func ReadBody(path string) (string, error) {
	f, err := ReadFile(path, 0)
	if err != nil {
		return "", err
	}
	doc, err := Parse(path, f.Data)
	if err != nil {
		return "", err
	}
	return doc.Body, nil
}
