package secretary

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aoi-protocol/aoi/config"
)

// Bounds on the optional LLM summariser.
const (
	llmTimeout        = 10 * time.Second
	llmMaxPromptRunes = 6000 // ~1.5k tokens of evidence, whatever the model's window
	llmDefaultTokens  = 400
	llmMaxTokens      = 1024
	llmMaxResponse    = 256 << 10
)

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model       string        `json:"model"`
	Messages    []chatMessage `json:"messages"`
	MaxTokens   int           `json:"max_tokens"`
	Temperature float64       `json:"temperature"`
	Stream      bool          `json:"stream"`
}

type chatResponse struct {
	Choices []struct {
		Message chatMessage `json:"message"`
	} `json:"choices"`
}

const llmSystemPrompt = "You are a software engineer's secretary answering a colleague. " +
	"Answer only from the evidence given, in the language of the question, in at most 4 sentences. " +
	"Never invent facts, never quote code, never include secrets."

// chatSummary asks an OpenAI-compatible chat endpoint (Ollama, llama.cpp,
// vLLM, OpenAI) to phrase the answer from the extractive facts.
func chatSummary(ctx context.Context, llm config.LLM, question, extractive string, f answerFacts) (string, error) {
	maxTokens := llm.MaxTokens
	if maxTokens <= 0 {
		maxTokens = llmDefaultTokens
	}
	return chatComplete(ctx, llm, []chatMessage{
		{Role: "system", Content: llmSystemPrompt},
		{Role: "user", Content: clipRunes(llmPrompt(question, extractive, f), llmMaxPromptRunes)},
	}, min(maxTokens, llmMaxTokens), llmTimeout)
}

// chatComplete sends one chat completion request and returns the reply,
// within timeout.
func chatComplete(ctx context.Context, llm config.LLM, msgs []chatMessage, maxTokens int, timeout time.Duration) (string, error) {
	body, err := json.Marshal(chatRequest{Model: llm.Model, Messages: msgs, MaxTokens: maxTokens})
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	url := strings.TrimSuffix(llm.Endpoint, "/") + "/chat/completions"
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("LLM endpoint %q is not a valid URL: %w", llm.Endpoint, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	if llm.APIKey != "" && !strings.HasPrefix(llm.APIKey, "${") {
		hreq.Header.Set("Authorization", "Bearer "+llm.APIKey)
	}
	resp, err := http.DefaultClient.Do(hreq)
	if err != nil {
		return "", fmt.Errorf("LLM endpoint %s: %w", url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, llmMaxResponse))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("LLM endpoint %s answered %s", url, resp.Status)
	}
	var cr chatResponse
	if err := json.Unmarshal(raw, &cr); err != nil {
		return "", fmt.Errorf("LLM endpoint %s sent no chat completion: %w", url, err)
	}
	if len(cr.Choices) == 0 || strings.TrimSpace(cr.Choices[0].Message.Content) == "" {
		return "", errors.New("LLM endpoint returned an empty answer")
	}
	return strings.TrimSpace(cr.Choices[0].Message.Content), nil
}

// llmPrompt lists the evidence: the extractive summary, short snippets of
// the best events, blockers and progress. No whole files, ever.
func llmPrompt(question, extractive string, f answerFacts) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Question: %s\n\nFacts: %s\n\nEvidence:\n", question, extractive)
	for i, h := range f.hits {
		if i == 8 {
			break
		}
		fmt.Fprintf(&b, "- [%s %s] %s — %s\n", h.Kind, h.TS.UTC().Format("2006-01-02 15:04"), clipRunes(h.Title, 100), clipRunes(h.Snippet, 160))
	}
	if f.progress != nil {
		fmt.Fprintf(&b, "\nProgress: %d%%\n", *f.progress)
	}
	if len(f.blockers) > 0 {
		fmt.Fprintf(&b, "\nBlockers:\n- %s\n", strings.Join(f.blockers, "\n- "))
	}
	return b.String()
}
