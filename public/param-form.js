// A query's parameters as a small form, typed from the data server's GET /endpoints listing: a number input
// for numeric types, a checkbox for BOOL, text otherwise; required when the listing says so (min_count 1,
// no default), the default shown when there is one. Submitting gives the values to send.

const NUMERIC = /^(U?INT|FLOAT|DOUBLE|REAL)/i;

/** The caller's parameters: RESTPP's own `query` entry and `<p>.type` beside an untyped vertex left out. */
export function callerParams(name, params) {
  return Object.entries(params ?? {}).filter(
    ([param, spec]) =>
      !(param === 'query' && spec?.default === name) && !(param.endsWith('.type') && param.slice(0, -5) in params),
  );
}

const required = (spec) => Number(spec?.min_count) >= 1 && spec?.default === undefined;

/** Fills `#param-fields` for `params` (from callerParams); returns a reader of the values entered. */
export function renderParamForm(title, params) {
  const host = document.getElementById('param-fields');
  document.getElementById('param-title').textContent = title;
  const inputs = params.map(([param, spec], i) => {
    const type = String(spec?.type ?? '');
    const label = document.createElement('label');
    const input = document.createElement('input');
    input.id = `param-${i}`;
    input.name = param;
    if (/^BOOL/i.test(type)) input.type = 'checkbox';
    else if (NUMERIC.test(type)) {
      input.type = 'number';
      input.step = /^(FLOAT|DOUBLE|REAL)/i.test(type) ? 'any' : '1';
    } else input.type = 'text';
    input.required = required(spec) && input.type !== 'checkbox';
    if (spec?.default !== undefined && input.type !== 'checkbox') input.placeholder = `default ${spec.default}`;
    label.append(`${param} `, input, ` ${type}${input.required ? ', required' : ''}`);
    return { param, input, numeric: input.type === 'number' };
  });
  host.replaceChildren(...inputs.map(({ input }) => input.parentElement));
  document.getElementById('param-form').hidden = false;
  inputs[0]?.input.focus();
  return () =>
    Object.fromEntries(
      inputs.flatMap(({ param, input, numeric }) => {
        if (input.type === 'checkbox') return [[param, input.checked]];
        if (input.value === '') return []; // left out: TigerGraph uses the default
        return [[param, numeric ? Number(input.value) : input.value]];
      }),
    );
}

export function hideParamForm() {
  document.getElementById('param-form').hidden = true;
  document.getElementById('param-fields').replaceChildren();
}
