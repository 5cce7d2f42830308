package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/aoi-protocol/aoi/config"
)

func (a *app) configCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show or validate the configuration file",
		Args:  args(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return usagef(cmd, "say `show` or `validate`") },
	}
	cmd.AddCommand(a.configShowCmd(), a.configValidateCmd())
	return cmd
}

// configPath is the file to read: the argument, else --config, else the
// one the core would load for the data dir.
func (a *app) configPath(argv []string) string {
	switch {
	case len(argv) == 1:
		return argv[0]
	case a.configFlag != "":
		return a.configFlag
	}
	return filepath.Join(a.dataDir(), config.ConfigFile)
}

func (a *app) configShowCmd() *cobra.Command {
	var example bool
	cmd := &cobra.Command{
		Use:   "show [PATH]",
		Short: "Print the effective configuration (defaults filled in, ${VAR}s expanded, secrets masked)",
		Args:  args(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			if example {
				if len(argv) > 0 {
					return usagef(cmd, "--example prints aoi's own example config; give it no PATH")
				}
				_, err := cmd.OutOrStdout().Write(config.ExampleJSON())
				return err
			}
			cfg, err := config.Load(a.configPath(argv))
			if err != nil {
				return err
			}
			return a.printJSON(maskSecrets(*cfg))
		},
	}
	// The example ships inside the binary: an aoi from `go install` has
	// no source tree to read config/aoi.example.json from.
	cmd.Flags().BoolVar(&example, "example", false, "print a working example config to start from (contexts, ACL rules, task types)")
	return cmd
}

// maskSecrets hides values that must never reach a terminal or a log.
func maskSecrets(c config.Config) config.Config {
	mask := func(s *string) {
		if *s != "" {
			*s = "********"
		}
	}
	mask(&c.Network.Tailscale.AuthKey)
	mask(&c.Secretary.LLM.APIKey)
	return c
}

// validationOutput is `aoi config validate --json`.
type validationOutput struct {
	Path     string          `json:"path"`
	Valid    bool            `json:"valid"`
	Problems []configProblem `json:"errors,omitempty"`
	// Warnings are what would not stop aoi starting but is likely a
	// mistake: a context's local_path that is not there.
	Warnings []configProblem `json:"warnings,omitempty"`
}

// configProblem is one config.Error in JSON.
type configProblem struct {
	Path    string `json:"path,omitempty"` // JSON pointer
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Problem string `json:"problem"`
	Fix     string `json:"fix,omitempty"`
	Message string `json:"message"`
}

func problems(errs []*config.Error) []configProblem {
	out := make([]configProblem, len(errs))
	for i, e := range errs {
		out[i] = configProblem{Path: e.Path, Line: e.Line, Column: e.Column, Problem: e.Problem, Fix: e.Fix, Message: e.Error()}
	}
	return out
}

func (a *app) configValidateCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "validate [PATH]",
		Short: "Check a configuration file; every problem names its JSON path and the fix",
		Args:  args(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			path := a.configPath(argv)
			cfg, err := config.Load(path)
			out := validationOutput{Path: path, Valid: err == nil}
			var warnings config.Errors
			if err == nil {
				warnings = config.Warnings(cfg)
				out.Warnings = problems(warnings)
			}
			var list config.Errors
			var one *config.Error
			switch {
			case errors.As(err, &list):
			case errors.As(err, &one):
				list = config.Errors{one}
			case err != nil:
				return err // not a config problem: the file could not be read
			}
			out.Problems = problems(list)
			if a.jsonOut {
				if perr := a.printJSON(out); perr != nil {
					return perr
				}
			} else if out.Valid {
				fmt.Fprintf(a.stdout, "%s: valid\n", path)
				for _, w := range warnings {
					fmt.Fprintf(a.stderr, "warning: %s\n", w.Error())
				}
			} else {
				printConfigErrors(a.stderr, list)
			}
			if !out.Valid {
				return &exitError{code: exitFailure}
			}
			return nil
		},
	}
}

func printConfigErrors(w io.Writer, errs []*config.Error) {
	for _, e := range errs {
		fmt.Fprintln(w, e.Error())
	}
	fmt.Fprintf(w, "%d %s; aoi will not start with this file until %s fixed\n", len(errs),
		plural(len(errs), "problem", "problems"), plural(len(errs), "it is", "they are"))
}
