// A JSON Schema (draft 2020-12) check, in the browser, for the keywords docs/record.schema.json
// uses. The replay page checks a record read from a file against that schema (the page's config
// carries it) before it draws anything from it: the schema is the one statement of the format,
// and the server checks records against the same file (places/wire/record_schema.py).
// A keyword it does not know makes the schema refused whole (Schema.compile throws), so a schema
// grown a new keyword is noticed at once rather than half checked.
"use strict";

const Schema = (() => {
  // Keywords that only describe (no check).
  const NOTES = new Set(["$schema", "$id", "$defs", "$comment", "title", "description", "examples", "default"]);
  const CHECKS = new Set([
    "$ref", "type", "const", "enum", "required", "properties", "additionalProperties", "items",
    "minItems", "maxItems", "uniqueItems", "minimum", "maximum", "minLength", "maxLength", "pattern",
    "allOf", "if", "then", "not",
  ]);
  const MAX_ERRORS = 20; // enough to tell what is wrong; a file of junk stops early

  const typeOf = (v) => {
    if (v === null) return "null";
    if (Array.isArray(v)) return "array";
    if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
    return typeof v; // "string", "boolean", "object"
  };
  const isType = (v, t) => typeOf(v) === t || (t === "number" && typeof v === "number" && Number.isFinite(v));

  // JSON equality (as the spec means it: object keys in any order).
  function canonical(v) {
    if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
    if (v && typeof v === "object") return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
    return JSON.stringify(v);
  }
  const equal = (a, b) => canonical(a) === canonical(b);
  const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
  const shortKey = (k) => (k.length > 40 ? JSON.stringify(k.slice(0, 40) + "…") : JSON.stringify(k));
  const child = (path, key) => (typeof key === "number" ? `${path}[${key}]` : /^[A-Za-z_]\w{0,39}$/.test(key) ? `${path}.${key}` : `${path}[${shortKey(key)}]`);

  // The schema, checked for keywords this file knows, with its patterns compiled once.
  function compile(root) {
    const patterns = new Map();
    const walk = (s, where) => {
      if (typeof s === "boolean") return;
      if (!s || typeof s !== "object") throw new Error(`schema ${where}: not a schema`);
      for (const key of Object.keys(s)) {
        if (!NOTES.has(key) && !CHECKS.has(key)) throw new Error(`schema ${where}: keyword ${key} is not supported`);
      }
      if (s.$ref !== undefined && !/^#\/\$defs\/[\w-]+$/.test(s.$ref)) throw new Error(`schema ${where}: $ref ${s.$ref}`);
      if (s.pattern !== undefined) patterns.set(s.pattern, new RegExp(s.pattern, "u"));
      for (const key of ["items", "additionalProperties", "if", "then", "not"]) if (s[key] !== undefined) walk(s[key], `${where}/${key}`);
      for (const [k, sub] of Object.entries(s.properties || {})) walk(sub, `${where}/properties/${k}`);
      for (const [k, sub] of Object.entries(s.$defs || {})) walk(sub, `${where}/$defs/${k}`);
      (s.allOf || []).forEach((sub, i) => walk(sub, `${where}/allOf/${i}`));
    };
    walk(root, "#");
    return { root, patterns };
  }

  // Every way `value` fails `schema` (the whole schema unless told), as "path: what" (at most
  // MAX_ERRORS).
  function errors(compiled, value, schema = compiled.root) {
    const out = [];
    const fail = (path, what) => { if (out.length < MAX_ERRORS) out.push(`${path}: ${what}`); };

    const check = (s, v, path) => {
      if (out.length >= MAX_ERRORS || s === true) return;
      if (s === false) { fail(path, "not allowed"); return; }
      if (s.$ref !== undefined) check(compiled.root.$defs[s.$ref.slice("#/$defs/".length)], v, path);
      if (s.type !== undefined) {
        const types = [].concat(s.type);
        if (!types.some((t) => isType(v, t))) { fail(path, `${typeOf(v)}, not ${types.join(" or ")}`); return; }
      }
      if (own(s, "const") && !equal(v, s.const)) fail(path, `must be ${JSON.stringify(s.const)}`);
      if (s.enum !== undefined && !s.enum.some((e) => equal(v, e))) fail(path, `must be one of ${s.enum.map((e) => JSON.stringify(e)).join(", ")}`);
      if (typeof v === "string") {
        const length = [...v].length; // code points, as the spec counts
        if (s.minLength !== undefined && length < s.minLength) fail(path, `shorter than ${s.minLength}`);
        if (s.maxLength !== undefined && length > s.maxLength) fail(path, `longer than ${s.maxLength}`);
        if (s.pattern !== undefined && !compiled.patterns.get(s.pattern).test(v)) fail(path, "not in the expected form");
      }
      if (typeof v === "number") {
        if (s.minimum !== undefined && v < s.minimum) fail(path, `less than ${s.minimum}`);
        if (s.maximum !== undefined && v > s.maximum) fail(path, `more than ${s.maximum}`);
      }
      if (Array.isArray(v)) {
        if (s.minItems !== undefined && v.length < s.minItems) fail(path, `fewer than ${s.minItems} items`);
        if (s.maxItems !== undefined && v.length > s.maxItems) fail(path, `more than ${s.maxItems} items`);
        if (s.uniqueItems && new Set(v.map(canonical)).size !== v.length) fail(path, "items repeat");
        if (s.items !== undefined) v.forEach((item, i) => check(s.items, item, child(path, i)));
      }
      if (typeOf(v) === "object") {
        (s.required || []).forEach((k) => { if (!own(v, k)) fail(path, `${shortKey(k)} is missing`); });
        const props = s.properties || {};
        for (const k of Object.keys(v)) {
          if (own(props, k)) check(props[k], v[k], child(path, k));
          else if (s.additionalProperties !== undefined) check(s.additionalProperties, v[k], child(path, k));
        }
      }
      (s.allOf || []).forEach((sub) => check(sub, v, path));
      if (s.if !== undefined && s.then !== undefined && passes(s.if, v)) check(s.then, v, path);
      if (s.not !== undefined && passes(s.not, v)) fail(path, "must not match");
    };
    // Whether `v` passes `s`, errors not kept (for if and not).
    const passes = (s, v) => errors(compiled, v, s).length === 0;
    check(schema, value, "$");
    return out;
  }

  return { compile, errors };
})();
