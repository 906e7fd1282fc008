// Every page: mark that scripts run, and switch the language as soon as one is chosen.
document.documentElement.classList.add("js");
document.addEventListener("change", (e) => {
  const select = e.target.closest("select[data-autosubmit]");
  if (select && select.form) select.form.submit();
});
