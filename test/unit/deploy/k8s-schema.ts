/**
 * Offline validation of Kubernetes objects against the schemas shipped by npm `kubernetes-models`.
 *
 * 1. Shape: each object is built with the model class for its apiVersion/kind (no such model: an unknown
 *    apiVersion or kind, which fails) and `validate()`d: types, required fields, enums.
 * 2. Unknown or misspelt fields, which `validate()` lets through: the same package's TypeScript
 *    interfaces are exact (maps such as labels are the only index signatures), so each object is
 *    type-checked as an object literal of its interface, and TypeScript's excess-property check names
 *    every field the schema does not have, at any depth.
 */
import { join } from 'node:path';
import ts from 'typescript';
import { REPO, type K8sObject } from './k8s-render.js';

/** `apps/v1` + `Deployment` -> `kubernetes-models/apps/v1/Deployment`; core `v1` -> `kubernetes-models/v1/…`. */
export function modelModule(o: Pick<K8sObject, 'apiVersion' | 'kind'>): string {
  if (!/^([a-z0-9.-]+\/)?v[0-9]+((alpha|beta)[0-9]+)?$/.test(o.apiVersion) || !/^[A-Z][A-Za-z0-9]*$/.test(o.kind)) {
    throw new Error(`not a Kubernetes apiVersion/kind: ${o.apiVersion} ${o.kind}`);
  }
  return `kubernetes-models/${o.apiVersion}/${o.kind}`;
}

type ModelClass = new (data: unknown) => { validate(): void };

/** Problems found by the models' own validators (shape), one string per object that fails. */
export async function shapeProblems(objects: K8sObject[]): Promise<string[]> {
  const problems: string[] = [];
  for (const o of objects) {
    const where = `${o.kind}/${o.metadata?.name}`;
    let Model: ModelClass;
    try {
      const mod = (await import(modelModule(o))) as Record<string, ModelClass>;
      Model = mod[o.kind];
      if (typeof Model !== 'function') throw new Error('no model class');
    } catch (err) {
      problems.push(
        `${where}: unknown apiVersion/kind ${o.apiVersion} ${o.kind} (${(err as Error).message.split('\n')[0]})`,
      );
      continue;
    }
    try {
      new Model(o).validate();
    } catch (err) {
      problems.push(`${where}: ${(err as Error).message}`);
    }
  }
  return problems;
}

const VIRTUAL = join(REPO, 'test', 'unit', 'deploy', '__k8s_objects__.ts');
const parsedDeclarations = new Map<string, ts.SourceFile | undefined>();

/** Fields the schema does not know (and any other type error TypeScript finds), one string each. */
export function unknownFieldProblems(objects: K8sObject[]): string[] {
  const lines: string[] = [];
  const owner: string[] = [];
  objects.forEach((o, i) => {
    const header = [`import type { I${o.kind} as T${i} } from '${modelModule(o)}';`, `export const o${i}: T${i} = `];
    const body = JSON.stringify(o, null, 1).split('\n');
    body[body.length - 1] += ';';
    for (const line of [...header, ...body]) {
      lines.push(line);
      owner.push(`${o.kind}/${o.metadata?.name}`);
    }
  });
  const source = lines.join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  host.getSourceFile = (name, lang, ...rest) => {
    if (name === VIRTUAL) return ts.createSourceFile(name, source, lang);
    // The schemas' declaration files are the same for every call: parse each once per test file.
    let parsed = parsedDeclarations.get(name);
    if (!parsed) parsedDeclarations.set(name, (parsed = getSourceFile(name, lang, ...rest)));
    return parsed;
  };
  host.fileExists = (name) => name === VIRTUAL || fileExists(name);
  host.readFile = (name) => (name === VIRTUAL ? source : readFile(name));
  const program = ts.createProgram([VIRTUAL], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const text = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    if (d.file?.fileName !== VIRTUAL || d.start === undefined) return text;
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${owner[line]} (${lines[line].trim()}): ${text}`;
  });
}
