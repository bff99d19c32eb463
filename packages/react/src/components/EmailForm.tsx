import { useForm } from "@tanstack/react-form";
import { useTexts } from "../texts/useTexts";
import type { EmailSection } from "../types";
import { validateEmail } from "../ui/validateEmail";
import { ArrowIcon } from "./icons";

/** The email field of the initial step (TanStack Form; validators on mount, change, blur and submit). */
export function EmailForm({
  section,
  onSubmit,
}: {
  section: EmailSection;
  onSubmit: (email: string) => Promise<void>;
}) {
  const texts = useTexts();
  const form = useForm({
    defaultValues: { email: "" },
    // Submit re-runs every validator (a blur error from an earlier value must not stick) and is blocked
    // if any fails; the button's own disabled state follows the current value.
    canSubmitWhenInvalid: true,
    onSubmit: ({ value }) => onSubmit(value.email.trim()),
  });
  return (
    <form
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        e.stopPropagation();
        void form.handleSubmit();
      }}
    >
      <form.Field
        name="email"
        validators={{
          onMount: ({ value }) => validateEmail(value, texts.invalidEmail, true),
          onChange: ({ value }) => validateEmail(value, texts.invalidEmail),
          onChangeAsyncDebounceMs: 250,
          onChangeAsync: async ({ value }) => validateEmail(value, texts.invalidEmail),
          onBlur: ({ value }) => validateEmail(value, texts.invalidEmail, true),
          onSubmit: ({ value }) => validateEmail(value, texts.invalidEmail),
        }}
      >
        {(field) => {
          const invalid = validateEmail(field.state.value, texts.invalidEmail) !== undefined;
          const showError =
            invalid &&
            field.state.value !== "" &&
            (field.state.meta.isBlurred || form.state.submissionAttempts > 0);
          return (
            <form.Subscribe selector={(s) => [s.isSubmitting, s.isValidating] as const}>
              {([isSubmitting, isValidating]) => {
                const disabled = invalid || isSubmitting || isValidating || field.state.value.trim() === "";
                return (
                  <div className="lk-stack">
                    <div className="lk-field">
                      <input
                        className={`lk-input${section.hideButton ? " lk-has-arrow" : ""}`}
                        type="email"
                        name="email"
                        autoComplete="email"
                        inputMode="email"
                        aria-label={section.placeholder ?? texts.emailPlaceholder}
                        placeholder={section.placeholder ?? texts.emailPlaceholder}
                        value={field.state.value}
                        aria-invalid={showError}
                        onBlur={field.handleBlur}
                        onChange={(e) => field.handleChange(e.target.value)}
                      />
                      {section.hideButton && (
                        <button
                          type="submit"
                          className="lk-arrow"
                          aria-label={section.buttonLabel ?? texts.continue}
                          disabled={disabled}
                        >
                          <ArrowIcon />
                        </button>
                      )}
                      {showError && (
                        <p className="lk-field-error" role="alert">
                          {texts.invalidEmail}
                        </p>
                      )}
                    </div>
                    {!section.hideButton && (
                      <button type="submit" className="lk-btn lk-btn-primary" disabled={disabled}>
                        {isSubmitting ? <span className="lk-spinner" aria-hidden /> : null}
                        {section.buttonLabel ?? texts.continue}
                      </button>
                    )}
                  </div>
                );
              }}
            </form.Subscribe>
          );
        }}
      </form.Field>
    </form>
  );
}
