// Platforms and instruments inferred from a record's own text with the GCMD vocabularies (lib/data/gcmd-infer.ts,
// issue 38 step 1): how names match (as written, folded, the longest span, aliases), and the quality measured against
// the records that carry CMR's values, kept from falling.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadSnapshot } from '../lib/data/snapshot';
import { readGcmdProjects, type GcmdEntity } from '../lib/data/gcmd';
import { readGcmdInstruments, readGcmdPlatforms } from '../lib/data/gcmd';
import {
  buildGcmdLexicon, plainWords, learnInstrumentHosts, learnInstrumentCarriers, learnFamilyNames, learnFamilyCompany, learnProviderUnlisted, learnTitleCues, titleCueKey, shortNameFamily, gcmdInferenceHalf, gcmdInferenceQuality, gcmdTokens, inferGcmdEntities, recordedGcmdNames,
  GCMD_INSTRUMENT_HOSTS, GCMD_PLATFORM_PAYLOADS, gcmdAliasOf, gcmdPlatformSeries, gcmdDirFor, inferCorpusGcmd, platformSeriesOf,
  learnShortNameNeighbours, shortNameNeighbourNames, shortNamePrefixKey, learnedGcmdLexicon, DEFAULT_GCMD_INFERENCE_RULES, familiesTheirTextsAgreeWith,
} from '../lib/data/gcmd-infer';
import { resolveDataDir } from '../lib/data/snapshot';
import type { DatasetRecord } from '../lib/data/types';

const entity = (shortName: string, longName = ''): [string, GcmdEntity] => [shortName.toUpperCase(), { shortName, longName, path: [] }];
const toyLexicon = () => buildGcmdLexicon({
  platforms: new Map([entity('Aura', 'Earth Observing System, Aura'), entity('Nimbus-7'), entity('NIMBUS'), entity('SUOMI-NPP', 'Suomi National Polar-orbiting Partnership'), entity('AIRCRAFT')]),
  instruments: new Map([
    entity('MLS', 'Microwave Limb Sounder'), entity('SSM/I', 'Special Sensor Microwave/Imager'), entity('SAGE', 'Stratospheric Aerosol and Gas Experiment'),
    entity('CRIMSS', 'Cross-track Infrared and Advanced Technology Microwave Sounders'), entity('CRIS'), entity('ATMS'),
  ]),
});
const record = (longName: string, shortName = '', abstract = '') => ({ longName, shortName, abstract });

test('tokens split on separators; short names match as written, long names and names with digits or separators folded', () => {
  assert.equal(gcmdTokens('MLS/Aura Level-2 (ML2HCL)'), ['MLS', 'Aura', 'Level', '2', 'ML2HCL']);
  const lex = toyLexicon();
  assert.equal(inferGcmdEntities(record('MLS/Aura Level 2 Hydrogen Chloride'), lex), { platforms: ['AURA'], instruments: ['MLS'], projects: [] });
  // a word that happens to be a name, in another case, is not the name
  assert.equal(inferGcmdEntities(record('The aura of sage grouse habitat'), lex), { platforms: [], instruments: [], projects: [] });
  // folded: long names and names with digits or separators, whatever the case
  assert.equal(inferGcmdEntities(record('Ozone from the microwave limb sounder on NIMBUS 7, ssm/i winds'), lex), { platforms: ['NIMBUS-7'], instruments: ['MLS', 'SSM/I'], projects: [] });
  // generic names (AIRCRAFT) and acronyms titles use for other things (SIPS: a processing system) never match by short name
  assert.equal(inferGcmdEntities(record('AIRCRAFT measurements'), lex).platforms, []);
  // projects: GCMD's project names, the same rules
  assert.match(readGcmdProjects().get('BOREAS')!.longName, /Boreal Ecosystem-Atmosphere Study/);
  const boreas = buildGcmdLexicon({ platforms: new Map(), instruments: new Map(), projects: new Map([entity('BOREAS', 'Boreal Ecosystem-Atmosphere Study')]) });
  assert.equal(inferGcmdEntities(record('BOREAS TE-17 Production Efficiency Model Images'), boreas).projects, ['BOREAS']);
  assert.equal(inferGcmdEntities(record('Images of the boreal ecosystem-atmosphere study'), boreas).projects, ['BOREAS']);
  // a capitalised short name that is a plain word of the texts ("Soil": a GCMD project) matches only by long name
  const words = plainWords(Array.from({ length: 20 }, () => 'the soil was wet'));
  assert.ok(words.has('soil') && !words.has('Soil') && !plainWords(['the soil was wet'], 20).has('soil'));
  const soil = { platforms: new Map(), instruments: new Map(), projects: new Map([entity('Soil', 'Soil Collection')]) };
  assert.equal(inferGcmdEntities(record('In Situ Soil Moisture'), buildGcmdLexicon(soil)).projects, ['SOIL']);
  assert.equal(inferGcmdEntities(record('In Situ Soil Moisture'), buildGcmdLexicon(soil, undefined, { plainWords: words })).projects, []);
  assert.equal(inferGcmdEntities(record('The NASA Soil Collection'), buildGcmdLexicon(soil, undefined, { plainWords: words })).projects, ['SOIL']);
  const sips = buildGcmdLexicon({ platforms: new Map(), instruments: new Map([entity('SIPS', 'Smart Instrument Points')]) });
  assert.equal(inferGcmdEntities(record('Sounder SIPS: Suomi NPP Level 2'), sips).instruments, []);
  assert.equal(inferGcmdEntities(record('Smart Instrument Points radiances'), sips).instruments, ['SIPS']);
});

test('the longest matching span wins; aliases; the abstract only when asked', () => {
  const lex = toyLexicon();
  assert.equal(inferGcmdEntities(record('TOMS Nimbus-7 Total Ozone'), lex).platforms, ['NIMBUS-7'], 'not NIMBUS as well');
  assert.equal(inferGcmdEntities(record('NIMBUS series archive'), lex).platforms, ['NIMBUS']);
  assert.equal(inferGcmdEntities(record('OMPS/NPP L1B radiances'), lex).platforms, ['SUOMI-NPP']);
  assert.equal(inferGcmdEntities(record('Suomi National Polar-orbiting Partnership radiances'), lex).platforms, ['SUOMI-NPP']);
  const r = record('Hydrogen chloride profiles', 'ML2HCL', 'Retrieved from MLS on Aura.');
  assert.equal(inferGcmdEntities(r, lex), { platforms: [], instruments: [], projects: [] });
  assert.equal(inferGcmdEntities(r, lex, ['title', 'short-name', 'abstract']), { platforms: ['AURA'], instruments: ['MLS'], projects: [] });
  // an acronym written in mixed case; a suite brings its members; a capitalised word is not an acronym
  assert.equal(inferGcmdEntities(record('Suomi NPP CrIMSS Level 2 retrievals'), lex), { platforms: ['SUOMI-NPP'], instruments: ['ATMS', 'CRIS'], projects: [] }, 'CMR lists the members, not the suite');
  assert.equal(inferGcmdEntities(record('CrIS radiances'), lex).instruments, ['CRIS']);
  assert.equal(inferGcmdEntities(record('Sage and Mls'), lex).instruments, []);
  const hosts = learnInstrumentHosts([
    ...Array.from({ length: 3 }, () => ({ platforms: ['Aqua'], instruments: ['AIRS'], projects: [] })),
    ...Array.from({ length: 3 }, () => ({ platforms: ['Aqua'], instruments: ['MODIS'], projects: [] })),
    { platforms: ['Terra'], instruments: ['MODIS'], projects: [] }, // MODIS flies on two: no host
    { platforms: ['Nimbus-7', 'Aqua'], instruments: ['TOMS', 'AIRS'], projects: [] }, // multi-sensor: says nothing
    ...Array.from({ length: 2 }, () => ({ platforms: ['Aura'], instruments: ['OMI'], projects: [] })), // too few
  ]);
  assert.equal([...hosts], [['AIRS', 'AQUA']]);
  assert.equal(inferGcmdEntities(record('AIRS-CloudSat cloud mask'), { ...buildGcmdLexicon({ platforms: new Map(), instruments: new Map([entity('AIRS')]) }), hosts }).platforms, ['AQUA']);
  assert.equal(recordedGcmdNames({ platforms: ['Aura', 'aura', 'Not Applicable'], instruments: [], projects: [] }, 'platforms'), ['AURA']);
});

test('an instrument\'s host yields to another platform CMR lists with it ("UARS Microwave Limb Sounder (MLS)")', () => {
  const labelled = [
    ...Array.from({ length: 10 }, () => ({ platforms: ['Aura'], instruments: ['MLS'], projects: [] })),
    { platforms: ['UARS'], instruments: ['MLS'], projects: [] }, // 1 in 11: AURA stays the host
    { platforms: ['Terra', 'Aqua'], instruments: ['MLS', 'MODIS'], projects: [] }, // multi-sensor: says nothing
  ];
  const carriers = learnInstrumentCarriers(labelled);
  assert.equal([...carriers.get('MLS')!].sort(), ['AURA', 'UARS']);
  const lex = { ...buildGcmdLexicon({ platforms: new Map([entity('UARS'), entity('Aura'), entity('Nimbus-7')]), instruments: new Map([entity('MLS', 'Microwave Limb Sounder')]) }), hosts: learnInstrumentHosts(labelled), carriers };
  assert.equal(inferGcmdEntities(record('UARS Microwave Limb Sounder (MLS) Level 3AT'), lex).platforms, ['UARS']);
  assert.equal(inferGcmdEntities(record('MLS Level 2 Ozone'), lex).platforms, ['AURA'], 'no platform named: the host');
  assert.equal(inferGcmdEntities(record('MLS ozone beside Nimbus-7 SBUV'), lex).platforms, ['AURA', 'NIMBUS-7'], 'a platform never listed with MLS does not stop the host');
  assert.equal(inferGcmdEntities(record('UARS MLS Level 3AT'), { ...lex, rules: { ...lex.rules, hostsYieldToCarriers: false } }).platforms, ['AURA', 'UARS'], 'the rule off');
});

test('a series and its member written as one word are the member', () => {
  const lex = buildGcmdLexicon({
    platforms: new Map([entity('TIROS', 'Television Infrared Observation Satellite'), entity('TIROS-N'), entity('NOAA-20')]),
    instruments: new Map([entity('TOVS', 'TIROS Operational Vertical Sounder')]),
  });
  assert.equal(inferGcmdEntities(record('TOVS GLA 5 DAY GRIDS from TIROSN V01'), lex).platforms, ['TIROS-N']);
  assert.equal(inferGcmdEntities(record('VIIRS NOAA20 cloud mask'), lex).platforms, ['NOAA-20']);
  assert.equal(inferGcmdEntities(record('Tiros images'), lex).platforms, [], 'one token of a plain name is not joined');
});

test('abstract-fallback: the abstract is read for platforms and instruments only where the title and short name name none', () => {
  const lex = toyLexicon();
  const fallback = ['title', 'short-name', 'abstract-fallback'] as const;
  const listed = record('Multi-satellite reflectivity L3', 'MSLERL3', 'Derived from the Nimbus-7 SBUV and the MLS on Aura. Spatial resolution 1 degree.');
  assert.equal(inferGcmdEntities(listed, lex), { platforms: [], instruments: [], projects: [] });
  assert.equal(inferGcmdEntities(listed, lex, fallback), { platforms: ['AURA', 'NIMBUS-7'], instruments: ['MLS'], projects: [] });
  // the title names a platform: the abstract is not read for platforms (it is for instruments, where the title names none)
  assert.equal(inferGcmdEntities(record('Aura reflectivity L3', '', 'Derived from the Nimbus-7 SBUV and the MLS.'), lex, fallback), { platforms: ['AURA'], instruments: ['MLS'], projects: [] });
  // a DOI's path, a phrase in lower case, and a sentence that sets the record beside another mission are not read
  assert.equal(inferGcmdEntities(record('Cloud liquid water', '', 'Profiles as output by the algorithm (doi: 10.5067/AURA/MLS/DATA201).'), lex, fallback).platforms, []);
  assert.equal(inferGcmdEntities(record('Ozone grids', '', 'A halo of nimbus 7 clouds.'), lex, fallback).platforms, []);
  assert.equal(inferGcmdEntities(record('Solar irradiance', '', 'Measured daily. The record was made to overlap with the Aura MLS.'), lex, fallback), { platforms: [], instruments: [], projects: [] });
  assert.equal(inferGcmdEntities(record('Solar irradiance', '', 'Measured daily by the Aura MLS.'), lex, fallback, ['platforms']), { platforms: ['AURA'], instruments: [], projects: [] }, 'only the fields asked');
});

test('providers\' habits: a name a provider\'s CMR records leave out though their titles name it is not inferred for that provider', () => {
  const lex = buildGcmdLexicon({ platforms: new Map([entity('Aqua'), entity('Terra')]), instruments: new Map(), projects: new Map([entity('Aqua'), entity('CERES', 'Clouds and the Earth\'s Radiant Energy System')]) });
  const rec = (id: string, daac: string, longName: string, projects: string[]): DatasetRecord => ({
    id, shortName: null, longName, abstract: '', doi: null, daac, publisher: null, temporalStart: null, temporalEnd: null,
    keywords: [], platforms: [], instruments: [], projects, processingLevel: null, landingPage: null, shortNameSource: null, catalogRecordComplete: true, sources: [],
  });
  const records = [
    ...[1, 2, 3].map((i) => rec(`C${i}-A`, 'LARC_ASDC', `CERES fluxes Aqua edition ${i}`, ['CERES'])), // titles name AQUA, CMR never lists it
    ...[4, 5, 6].map((i) => rec(`C${i}-B`, 'GES_DISC', `Aqua cloud product ${i}`, ['AQUA'])), // this provider lists it
    ...[7, 8].map((i) => rec(`C${i}-C`, 'POCLOUD', `Aqua sea surface ${i}`, ['GHRSST'])), // too few records at 3
    rec('C9-A', 'LARC_ASDC', 'Aqua radiances', []), // lists no project: says nothing
  ];
  assert.equal([...learnProviderUnlisted(records, lex).keys()], ['LARC_ASDC', 'POCLOUD'], 'the default: one record is enough');
  const unlisted = learnProviderUnlisted(records, lex, 3);
  assert.equal([...unlisted.keys()], ['LARC_ASDC']);
  assert.equal([...unlisted.get('LARC_ASDC')!.projects!], ['AQUA']);
  assert.equal(unlisted.get('LARC_ASDC')!.platforms, undefined, 'no platform is listed by these records: nothing learned of platforms');
  const learned = { ...lex, unlisted };
  assert.equal(inferGcmdEntities({ ...record('CERES fluxes Aqua edition 4'), daac: 'LARC_ASDC' }, learned).projects, ['CERES']);
  assert.equal(inferGcmdEntities({ ...record('Aqua cloud product 7'), daac: 'GES_DISC' }, learned).projects, ['AQUA']);
  assert.equal(inferGcmdEntities(record('CERES fluxes Aqua edition 4'), learned).projects, ['AQUA', 'CERES'], 'no provider given: nothing left out');
  assert.equal(learnProviderUnlisted(records, lex, 4).size, 0, 'minRecords');
});

test('title cues: the projects CMR lists after a word of the title nearly always are added', () => {
  const rec = (id: string, longName: string, projects: string[], shortName: string | null = null): DatasetRecord => ({
    id, shortName, longName, abstract: '', doi: null, daac: 'CDDIS', publisher: null, temporalStart: null, temporalEnd: null,
    keywords: [], platforms: [], instruments: [], projects, processingLevel: null, landingPage: null, shortNameSource: null, catalogRecordComplete: true, sources: [],
  });
  const records = [
    rec('C1-X', 'GNSS ionosphere final products', ['IGS']), rec('C2-X', 'GNSS orbits', ['IGS']), rec('C3-X', 'Rapid clock products', ['IGS'], 'CDDIS_GNSS_clock'),
    rec('C4-X', 'SLR normal points', ['ILRS']), rec('C5-X', 'SLR station positions', ['ILRS']), // two records: too few
    rec('C6-X', 'DORIS products', ['IDS']), rec('C7-X', 'DORIS orbits', ['IDS']), rec('C8-X', 'DORIS GNSS tie', ['IDS']),
    rec('C9-X', 'GNSS tropospheric delay', []), // lists no project: says nothing
  ];
  const corpusWide = learnTitleCues(records, { scope: 'corpus', minRecords: 3, minShare: 0.9 });
  assert.equal(Object.keys(corpusWide), ['projects'], 'projects only by default');
  assert.equal(corpusWide.projects!.get('gnss'), undefined, 'GNSS: IGS in 3 of 4 records, below .9');
  assert.equal(corpusWide.projects!.get('doris'), { names: ['IDS'], listedWith: ['IDS'] });
  assert.equal(corpusWide.projects!.get('slr'), undefined, 'two records');
  assert.equal(learnTitleCues(records, { scope: 'corpus', minShare: 0.75 }).projects!.get('gnss')?.names, ['IGS']);
  // the default: every record of the provider with the word lists the name (two records suffice), and the cue holds
  // for that provider's records only
  const cues = learnTitleCues(records);
  assert.equal(cues.projects!.get(titleCueKey('slr', 'CDDIS'))?.names, ['ILRS']);
  assert.equal(cues.projects!.get('slr'), undefined, 'not corpus-wide');
  assert.equal(cues.projects!.get(titleCueKey('gnss', 'CDDIS')), undefined, 'IGS in 3 of 4');
  // the words given as plain words are never cues
  assert.equal(learnTitleCues(records, { plainWords: new Set(['slr']) }).projects!.get(titleCueKey('slr', 'CDDIS')), undefined);
  assert.throws(() => learnTitleCues(records, { scope: 'archive' as never }), /scope/);
  assert.throws(() => learnTitleCues(records, { minShare: 0 }), /minShare/);
  const lex = { ...buildGcmdLexicon({ platforms: new Map(), instruments: new Map() }), cues };
  assert.equal(inferGcmdEntities({ ...record('DORIS station coordinates'), daac: 'CDDIS' }, lex).projects, ['IDS']);
  assert.equal(inferGcmdEntities({ ...record('Station coordinates', 'doris_stcd'), daac: 'CDDIS' }, lex).projects, ['IDS'], 'the short name\'s words too');
  assert.equal(inferGcmdEntities({ ...record('DORIS station coordinates'), daac: 'OTHER_DAAC' }, lex).projects, [], 'another provider');
  assert.equal(inferGcmdEntities(record('DORIS station coordinates'), lex).projects, [], 'no provider given');
  assert.equal(inferGcmdEntities(record('DORIS station coordinates'), { ...lex, cues: corpusWide }).projects, ['IDS'], 'a corpus-wide cue holds for any record');
  assert.equal(inferGcmdEntities({ ...record('Laser ranging points'), daac: 'CDDIS' }, lex).projects, []);
});

test('title cues need their company: a cue adds its names only where every project the texts name was listed with its word', () => {
  const rec = (id: string, longName: string, projects: string[]): DatasetRecord => ({
    id, shortName: null, longName, abstract: '', doi: null, daac: 'LARC_ASDC', publisher: null, temporalStart: null, temporalEnd: null,
    keywords: [], platforms: [], instruments: [], projects, processingLevel: null, landingPage: null, shortNameSource: null, catalogRecordComplete: true, sources: [],
  });
  // every LARC_ASDC record with "Pandora" lists DISCOVER-AQ; one lists OWLETS beside it
  const cues = learnTitleCues([rec('C1-L', 'Pandora column observations Baltimore', ['DISCOVER-AQ']), rec('C2-L', 'Pandora column observations Houston', ['DISCOVER-AQ', 'OWLETS'])]);
  assert.equal(cues.projects!.get(titleCueKey('pandora', 'LARC_ASDC')), { names: ['DISCOVER-AQ'], listedWith: ['DISCOVER-AQ', 'OWLETS'] });
  const lex = { ...buildGcmdLexicon({ platforms: new Map(), instruments: new Map(), projects: new Map([entity('ARCTAS'), entity('OWLETS'), entity('DISCOVER-AQ')]) }), cues };
  const at = (title: string) => inferGcmdEntities({ ...record(title), daac: 'LARC_ASDC' }, lex).projects;
  assert.equal(at('Pandora spectrometer data'), ['DISCOVER-AQ'], 'the texts name no project: the cue adds its name');
  assert.equal(at('OWLETS Pandora spectrometer data'), ['DISCOVER-AQ', 'OWLETS'], 'OWLETS was listed with the word');
  assert.equal(at('ARCTAS Pandora spectrometer data'), ['ARCTAS'], 'ARCTAS never was: another campaign\'s record');
  const alone = { ...lex, rules: { ...lex.rules, cuesNeedTheirCompany: false } };
  assert.equal(inferGcmdEntities({ ...record('ARCTAS Pandora spectrometer data'), daac: 'LARC_ASDC' }, alone).projects, ['ARCTAS', 'DISCOVER-AQ'], 'the rule off: added anyway');
});

test('product families: by the short name; the names CMR lists for nearly all of a family\'s records are added', () => {
  assert.equal(['GozMmlpH2O', 'GSSTF_F08', 'NLDAS_FORB0125_M', 'MOD04_L2', 'AIRS2RET', 'OMAERO', 'g4', 'Ab', undefined].map(shortNameFamily), ['goz', 'gsstf', 'nldas', 'mod', 'airs', 'omaero', null, null, null]);
  const goz = (instruments: string[], platforms: string[] = []) => ({ shortName: 'GozMmlpO3', platforms, instruments, projects: [] });
  const families = learnFamilyNames([
    goz(['MLS', 'ACE-FTS']), goz(['MLS', 'HALOE']), goz(['MLS', 'ACE-FTS'], ['Aura']), // MLS in all: kept; ACE-FTS in 2 of 3: not
    { shortName: 'GSSTF_F08', platforms: [], instruments: ['SSM/I'], projects: [] }, { shortName: 'GSSTF_F10', platforms: [], instruments: ['SSM/I'], projects: [] }, // 2 records: too few
    { shortName: 'g4.x', platforms: ['Aqua'], instruments: ['AIRS'], projects: [] }, // no family
  ]);
  assert.equal([...families], [['goz', { instruments: ['MLS'] }]]);
  const lex = { ...buildGcmdLexicon({ platforms: new Map(), instruments: new Map([entity('MLS')]) }, undefined, { learnedFamilies: families }) };
  assert.equal(inferGcmdEntities({ longName: 'GOZCARDS Merged Ozone 1 month L3', shortName: 'GozMmlpO3', abstract: '' }, lex).instruments, ['MLS']);
  assert.equal(inferGcmdEntities({ longName: 'GOZCARDS Merged Ozone 1 month L3', shortName: 'GozMmlpO3', abstract: '' }, buildGcmdLexicon({ platforms: new Map(), instruments: new Map([entity('MLS')]) })).instruments, []);
});

test('product families need their company: a family\'s names are not added where the texts name one its records never listed', () => {
  const oco = (shortName: string) => ({ shortName, platforms: ['OCO-2'], instruments: ['OCO-2'], projects: [] });
  const labelled = [oco('OCO2_L2_Lite_FP'), oco('OCO2_L2_Standard'), oco('OCO2_L1B_Science')];
  const company = learnFamilyCompany(labelled);
  assert.equal(company.get('oco'), { platforms: new Set(['OCO-2']), instruments: new Set(['OCO-2']) });
  const lex = buildGcmdLexicon({ platforms: new Map([entity('OCO-2'), entity('OCO-3')]), instruments: new Map([entity('OCO-2'), entity('OCO-3')]) }, undefined, {
    learnedFamilies: learnFamilyNames(labelled), learnedFamilyCompany: company, missionHosts: false,
  });
  const named = (title: string, shortName: string) => inferGcmdEntities({ longName: title, shortName, abstract: '' }, lex).instruments;
  assert.equal(named('OCO-3 Level 2 bias-corrected XCO2', 'OCO3_L2_Lite_FP'), ['OCO-3'], 'OCO-3 was never listed with the family');
  assert.equal(named('Level 2 geolocated XCO2 retrievals', 'OCO2_L2_Diagnostic'), ['OCO-2'], 'nothing named: the family\'s');
  assert.equal(inferGcmdEntities({ longName: 'OCO-3 Level 2', shortName: 'OCO3_L2', abstract: '' }, { ...lex, rules: { ...lex.rules, familiesNeedTheirCompany: [] } }).instruments, ['OCO-2', 'OCO-3'], 'the rule off');
});

test('DMSP flight numbers: a record of a DMSP sensor that names a flight is on that satellite; not from an abstract', () => {
  const lex = buildGcmdLexicon({
    platforms: new Map([entity('DMSP'), entity('DMSP 5D-2/F8'), entity('DMSP 5D-2/F13'), entity('DMSP 5D-3/F16')]), instruments: new Map([entity('SSM/I'), entity('SSMIS'), entity('MODIS')]),
  });
  assert.equal(inferGcmdEntities(record('GPM SSMIS on F16 Common Calibrated Brightness Temperatures L1C'), lex).platforms, ['DMSP 5D-3/F16']);
  assert.equal(inferGcmdEntities(record('Surface Turbulent Fluxes Satellite F08', 'GSSTF_F08'), { ...lex, families: new Map([['gsstf', { instruments: ['SSM/I'] }]]) }).platforms, ['DMSP 5D-2/F8'], 'the sensor from the product family, the flight zero-padded');
  assert.equal(inferGcmdEntities(record('RSS SSM/I ocean product grids from DMSP F13'), lex).platforms, ['DMSP', 'DMSP 5D-2/F13']);
  assert.equal(inferGcmdEntities(record('MODIS fire radiative power, F16 burn scars'), lex).platforms, [], 'no DMSP sensor: F16 is not a flight');
  assert.equal(inferGcmdEntities(record('SSM/I solar index F10.7'), lex).platforms, [], 'F10.7 is the solar flux');
  const merged = record('Surface Turbulent Fluxes Set1', 'GSSTF', 'from SSM/I on DMSP F08, F10, F11, F13 and F14');
  assert.equal(inferGcmdEntities(merged, lex, ['title', 'short-name', 'abstract']).platforms, ['DMSP'], 'an abstract lists every flight of a merged product');
  assert.equal(inferGcmdEntities(record('GPM SSMIS on F16'), { ...lex, rules: { ...lex.rules, dmspFlightNumbers: false } }).platforms, [], 'the rule off');
});

test('a platform heading a sensor on another platform is the product line\'s name ("GPM SAPHIR on MT1")', () => {
  const lex = buildGcmdLexicon({
    platforms: new Map([entity('GPM'), entity('MT1'), entity('TRMM'), entity('NOAA-20')]), instruments: new Map([entity('SAPHIR'), entity('TMI'), entity('GMI'), entity('VIIRS')]),
  });
  assert.equal(inferGcmdEntities(record('GPM SAPHIR on MT1 (PRPS) Radiometer Precipitation Profiling L3', 'GPM_3PRPSMT1SAPHIR'), lex).platforms, ['MT1'], 'nor from the short name');
  assert.equal(inferGcmdEntities(record('GPM TMI on TRMM Brightness Temperatures L1B'), lex).platforms, ['TRMM']);
  assert.equal(inferGcmdEntities(record('GPM GMI on GPM Brightness Temperatures'), lex).platforms, ['GPM'], 'the platform after "on" too');
  assert.equal(inferGcmdEntities(record('GPM GMI Brightness Temperatures'), lex).platforms, ['GPM'], 'no "on": the record\'s platform');
  assert.equal(inferGcmdEntities(record('NOAA-20 VIIRS On-Board Calibration Product'), lex).platforms, ['NOAA-20'], '"On-Board" is not "on"');
  assert.equal(inferGcmdEntities(record('GPM SAPHIR on MT1'), { ...lex, rules: { ...lex.rules, productLineHeads: false } }).platforms, ['GPM', 'MT1'], 'the rule off');
});

test('product families keep only the platforms and instruments their own records\' texts agree with', () => {
  const families = new Map([['gpm', { instruments: ['SAPHIR'], projects: ['GPM'] }], ['airx', { platforms: ['AQUA'], instruments: ['AIRS', 'AMSU-A'] }]]);
  // what each record's texts name, as the reader gives it (CMR's values are not read)
  const texts: Record<string, string[]> = {
    GPM_2APRPSMT1SAPHIR: ['SAPHIR'], GPM_1CF16SSMIS: ['SSMIS'], GPM_1CNOAA19MHS: ['MHS'], GPM_1CNPPATMS: ['ATMS'], GPM_3IMERGHH: [],
    AIRX2RET: ['AIRS'], AIRX3STD: ['AIRS'], AIRX2SUP: ['AIRS'], AIRX3QP5: ['HSB'],
  };
  const records = Object.keys(texts).map((shortName) => ({ shortName }));
  const named = (d: { shortName: string | null }) => ({ platforms: [], instruments: texts[d.shortName!], projects: ['SOMETHING ELSE'] });
  const kept = familiesTheirTextsAgreeWith(families, records, named);
  assert.equal(kept.get('gpm'), { projects: ['GPM'] }, 'SAPHIR named in 1 of 4 GPM_ records naming an instrument; projects are never checked');
  assert.equal(kept.get('airx'), { platforms: ['AQUA'], instruments: ['AIRS', 'AMSU-A'] }, 'AIRS named in 3 of 4; no platform named: no evidence against AQUA');
  assert.equal(familiesTheirTextsAgreeWith(families, records, named, 0.2).get('gpm'), { instruments: ['SAPHIR'], projects: ['GPM'] }, 'a lower share keeps it');
  assert.equal(familiesTheirTextsAgreeWith(families, records.slice(0, 2), named).get('gpm'), { instruments: ['SAPHIR'], projects: ['GPM'] }, 'fewer than 3 records naming anything');
  // in the corpus: the GPM constellation's products ("GPM SSMIS on F16 …") are not SAPHIR on MT1
  const corpus = loadSnapshot({});
  const mt1 = corpus.datasets.filter((d) => /^GPM \S+ on /.test(d.longName) && !/\bMT1\b/.test(d.longName) && d.inferred?.platforms.includes('MT1'));
  assert.equal(mt1.map((d) => d.shortName), []);
});

test('short-name neighbours: an empty field gets what the records of the longest shared prefix at the provider all list', () => {
  const rec = (id: string, shortName: string, platforms: string[], daac = 'GES_DISC') => ({ id, shortName, daac, platforms, instruments: [], projects: [] });
  const records = [
    rec('a', 'GSSTF', ['DMSP']), rec('b', 'GSSTFM', ['DMSP']), rec('c', 'GSSTFYC', ['DMSP']),
    rec('d', 'TRMM_1B01', ['TRMM']), rec('e', 'TRMM_1B11', ['TRMM']), rec('f', 'TRMM_2A54', ['WEATHER STATIONS']), rec('g', 'TRMM_2A55', ['WEATHER STATIONS']),
    rec('h', 'GSSTFMC', ['NOAA-7'], 'OTHER_DAAC'), rec('i', 'ABC', ['AQUA']), // another provider; a short name shorter than the prefix
    rec('j', 'MIXED_1', ['AQUA']), rec('k', 'MIXED_2', ['TERRA']),
  ];
  // at prefixes of ≥ 4 characters and ≥ 2 records
  const four = { minPrefix: 4, minRecords: 2 };
  const neighbours = learnShortNameNeighbours(records, four.minPrefix);
  assert.ok(neighbours.has(shortNamePrefixKey('GES_DISC', 'GSST')) && !neighbours.has(shortNamePrefixKey('GES_DISC', 'GSS')) && !neighbours.has(shortNamePrefixKey('GES_DISC', 'ABC')));
  const lex = { neighbours };
  const names = (shortName: string, id?: string, daac = 'GES_DISC') => shortNameNeighbourNames({ shortName, id, daac }, lex, 'platforms', four);
  assert.equal(names('GSSTFMC'), ['DMSP'], 'GSSTFM and then GSSTF: the longest prefix with two records');
  assert.equal(names('GSSTFMC', undefined, 'OTHER_DAAC'), [], 'one record at that provider');
  assert.equal(names('TRMM_2A56'), ['WEATHER STATIONS'], 'trmm_2a5, not trmm_');
  assert.equal(names('TRMM_2A54', 'f'), [], 'the record itself is left out: one neighbour is too few, and trmm_ disagrees');
  assert.equal(names('TRMM_1B51'), ['TRMM']);
  assert.equal(names('MIXED_3'), [], 'neighbours that disagree give nothing');
  assert.equal(shortNameNeighbourNames({ shortName: 'MIXED_3', daac: 'GES_DISC' }, lex, 'platforms', { ...four, minShare: 0.5 }), ['AQUA', 'TERRA']);
  assert.equal(shortNameNeighbourNames({ shortName: 'GSSTFMC' }, lex, 'platforms', four), [], 'no provider, no neighbours');
  // the default: the nearest record sharing ≥ 7 characters
  const near = { neighbours: learnShortNameNeighbours(records) };
  const nearest = (shortName: string, id?: string) => shortNameNeighbourNames({ shortName, id, daac: 'GES_DISC' }, near, 'platforms');
  assert.equal(nearest('TRMM_2A56'), ['WEATHER STATIONS']);
  assert.equal(nearest('TRMM_2A54', 'f'), ['WEATHER STATIONS'], 'its one neighbour under trmm_2a5');
  assert.equal(nearest('GSSTFMC'), [], 'GSSTFYC shares 5 characters only');
  assert.equal(nearest('MIXED_3'), [], 'two nearest that disagree');
  // in the inference: only a field the texts name nothing in, and never a name the texts deny
  const gcmd = buildGcmdLexicon({ platforms: new Map([entity('TRMM', 'Tropical Rainfall Measuring Mission'), entity('AQUA')]), instruments: new Map() }, undefined, { learnedNeighbours: near.neighbours });
  const infer = (longName: string, shortName: string) => inferGcmdEntities({ longName, shortName, abstract: '', daac: 'GES_DISC' }, gcmd).platforms;
  assert.equal(infer('TRMM Ground Validation Rain Type Totals', 'TRMM_2A57'), ['WEATHER STATIONS']);
  assert.equal(infer('Rain Type Totals from AQUA', 'TRMM_2A57'), ['AQUA', 'TRMM'], 'the texts name platforms (TRMM in the short name): kept as they are');
  assert.equal(infer('TRMM Precipitation Radar L1B', 'TRMM_1B21'), ['TRMM']);
  assert.equal(infer('TRMM Ground Validation Radar Reflectivity L1B', 'TRMM_1B51'), [], 'denied by the text, so not taken from TRMM_1B01 and TRMM_1B11');
  assert.equal(inferGcmdEntities({ longName: 'Rain Type Totals', shortName: 'TRMM_2A57', abstract: '' }, gcmd).platforms, ['TRMM'], 'no provider given: the short name\'s TRMM only');
  // the neighbours' veto (projects): a named project that none of the nearest neighbours lists is left out
  const subsets = ['MAC04S0', 'MAC06S1'].map((shortName, i) => ({ id: `p${i}`, shortName, daac: 'GES_DISC', platforms: [], instruments: [], projects: ['ATDD'] }));
  const vetoing = buildGcmdLexicon({ platforms: new Map(), instruments: new Map(), projects: new Map([entity('AQUA'), entity('ATDD')]) }, undefined, { learnedNeighbours: learnShortNameNeighbours(subsets) });
  const projectsOf = (longName: string, shortName: string, l = vetoing) => inferGcmdEntities({ longName, shortName, abstract: '', daac: 'GES_DISC' }, l).projects;
  assert.equal(projectsOf('MODIS AQUA Aerosol Subset', 'MAC07S1'), [], 'AQUA: its neighbours (under "mac0") list ATDD only');
  assert.equal(projectsOf('MODIS AQUA ATDD Aerosol Subset', 'MAC07S1'), ['ATDD']);
  assert.equal(projectsOf('AQUA Aerosol', 'XYZ07S1'), ['AQUA'], 'no neighbours: kept');
  assert.equal(projectsOf('MODIS AQUA Aerosol Subset', 'MAC07S1', { ...vetoing, rules: { ...vetoing.rules, neighbourVeto: [] } }), ['AQUA']);
  assert.equal(projectsOf('MODIS AQUA Aerosol Subset', 'MAC07S1', { ...vetoing, rules: { ...vetoing.rules, vetoMinPrefix: 5 } }), ['AQUA'], '"mac0" is shorter than 5');
});

test('rules: a family fills platforms only; a host beside a member of its series is not added; "correlative" data are not the mission\'s', () => {
  const lex = buildGcmdLexicon({
    platforms: new Map([entity('UARS', 'Upper Atmosphere Research Satellite'), entity('CATCHMENT-LSM'), entity('NOAH-LSM'), entity('SUOMI-NPP'), entity('NOAA-20')]),
    instruments: new Map([entity('CRIS'), entity('MLS')]),
  }, undefined, {
    learnedHosts: new Map([['CRIS', 'SUOMI-NPP']]),
    learnedFamilies: new Map([['gldas', { platforms: ['NOAH-LSM'] }], ['goz', { instruments: ['MLS'] }]]),
  });
  lex.seriesOf = new Map([['SUOMI-NPP', 'JPSS'], ['NOAA-20', 'JPSS']]);
  assert.equal(lex.rules, { ...DEFAULT_GCMD_INFERENCE_RULES });
  const read = (longName: string, shortName = '', l = lex) => inferGcmdEntities({ longName, shortName, abstract: '' }, l);
  assert.equal(read('GLDAS Catchment-LSM monthly', 'GLDAS_CLSM10_M').platforms, ['CATCHMENT-LSM'], 'the family\'s Noah does not join a named model');
  assert.equal(read('GLDAS monthly', 'GLDAS_CLSM10_M').platforms, ['NOAH-LSM'], 'it fills a record that names none');
  assert.equal(read('GLDAS Catchment-LSM monthly', 'GLDAS_CLSM10_M', { ...lex, rules: { ...lex.rules, familyFillsOnly: [] } }).platforms, ['CATCHMENT-LSM', 'NOAH-LSM']);
  assert.equal(read('GOZCARDS MLS merged ozone', 'GozMmlpO3').instruments, ['MLS'], 'instruments keep adding');
  assert.equal(read('JPSS-1 CrIS Level 1B', 'SNDRJ1CrISL1B').platforms, ['NOAA-20'], 'CrIS flies on NOAA-20 here, not on its learned host Suomi NPP');
  assert.equal(read('CrIS Level 1B', 'SNDRCrISL1B').platforms, ['SUOMI-NPP']);
  assert.equal(read('UARS Correlative NMC Daily Gridded Stratospheric Assimilated Data', 'UARZCNMC').platforms, []);
  // in an abstract, ACE inside ACE-FTS is the instrument's; in a title a platform inside an instrument's name stays
  const ace = buildGcmdLexicon({
    platforms: new Map([entity('ACE', 'Advanced Composition Explorer'), entity('SCISAT-1/ACE'), entity('TRMM', 'Tropical Rainfall Measuring Mission')]),
    instruments: new Map([entity('ACE-FTS', 'Atmospheric Chemistry Experiment-Fourier Transform Spectrometer'), entity('PR', 'TRMM Precipitation Radar')]),
  });
  const fromAbstract = (abstract: string, l = ace) => inferGcmdEntities({ longName: 'Merged water vapour zonal means', shortName: '', abstract }, l, ['title', 'short-name', 'abstract-fallback']).platforms;
  assert.equal(fromAbstract('Profiles from ACE-FTS and MLS are merged.'), ['SCISAT-1/ACE'], 'ACE-FTS → its host (GCMD_INSTRUMENT_HOSTS), not ACE the spacecraft');
  assert.equal(fromAbstract('Profiles from ACE-FTS and MLS are merged.', { ...ace, rules: { ...ace.rules, platformInsideInstrumentInProse: false } }), ['ACE', 'SCISAT-1/ACE']);
  assert.equal(fromAbstract('Solar wind data from ACE are merged.'), ['ACE']);
  assert.equal(inferGcmdEntities({ longName: 'TRMM Precipitation Radar L2A', shortName: '', abstract: '' }, ace).platforms, ['TRMM']);
  assert.equal(read('UARS Microwave Limb Sounder Level 3AT', 'UARML3AT').platforms, ['UARS']);
  // a platform right after an instrument it does not carry, beside the instrument's own platform, qualifies the product
  const s5p = buildGcmdLexicon({
    platforms: new Map([entity('SENTINEL-5P'), entity('SUOMI-NPP'), entity('NIMBUS-4'), entity('NIMBUS-7')]),
    instruments: new Map([entity('TROPOMI'), entity('VIIRS'), entity('BUV'), entity('SBUV')]),
  }, undefined, { learnedCarriers: new Map([['TROPOMI', new Set(['SENTINEL-5P'])], ['VIIRS', new Set(['SUOMI-NPP'])], ['BUV', new Set(['NIMBUS-4'])]]) });
  const fromTitle = (longName: string, l = s5p) => inferGcmdEntities({ longName, shortName: '', abstract: '' }, l).platforms;
  assert.equal(fromTitle('Sentinel-5P TROPOMI SNPP cloud product band 7 (SWIR detector) 1-Orbit L2'), ['SENTINEL-5P']);
  assert.equal(fromTitle('Sentinel-5P TROPOMI SNPP cloud product band 7', { ...s5p, rules: { ...s5p.rules, platformAfterForeignInstrument: false } }), ['SENTINEL-5P', 'SUOMI-NPP']);
  assert.equal(fromTitle('TROPOMI SNPP cloud product'), ['SENTINEL-5P', 'SUOMI-NPP'], 'kept where the title names no platform of the instrument (its host is added)');
  assert.equal(fromTitle('Sentinel-5P TROPOMI and SNPP VIIRS merged clouds'), ['SENTINEL-5P', 'SUOMI-NPP']);
  assert.equal(inferGcmdEntities({ longName: 'Merged SBUV ozone', shortName: '', abstract: 'Data from the Nimbus-4 BUV, Nimbus-7 SBUV and later instruments.' }, s5p, ['title', 'short-name', 'abstract-fallback']).platforms, ['NIMBUS-4', 'NIMBUS-7'], 'not in an abstract');
});

test('on the full snapshot: measured against CMR\'s own values (fields hidden), title and short name', () => {
  const corpus = loadSnapshot();
  const lex = buildGcmdLexicon();
  const q = gcmdInferenceQuality(corpus.datasets, lex);
  const by = Object.fromEntries(q.map((x) => [x.field, x]));
  assert.is(by.platforms.records, 987);
  assert.ok(by.instruments.records > 700, `${by.instruments.records}`);
  // the figures of 2026-12-05 (platforms .964 / .679, instruments .958 / .761, projects .728 / .605 on 7,978 records —
  // .677 / .593 while "NPP", GNSS, NEXRAD and DMSP were read as GCMD projects by their short names and "Aquarius" as
  // nothing —:
  // GCMD lists missions and generic words as projects; earlier that day platforms .922 / .670 and instruments .943 /
  // .751, before the analysis, ground-validation and instrument-on-platform rules; 2026-12-04: platforms .897 /
  // .660), kept from falling
  assert.ok(by.platforms.precision >= 0.955 && by.platforms.recall >= 0.675, JSON.stringify(by.platforms));
  assert.ok(by.instruments.precision >= 0.95 && by.instruments.recall >= 0.755, JSON.stringify(by.instruments));
  assert.ok(by.projects.records > 7000 && by.projects.precision >= 0.72 && by.projects.recall >= 0.595, JSON.stringify(by.projects));
  // a dev half to develop rules on and a test half to report, splitting the measured records by id, stably
  const halves = (['dev', 'test'] as const).map((h) => Object.fromEntries(gcmdInferenceQuality(corpus.datasets, lex, undefined, h).map((x) => [x.field, x])));
  assert.is(halves[0].platforms.records + halves[1].platforms.records, 987);
  assert.ok(Math.min(halves[0].platforms.records, halves[1].platforms.records) > 400);
  assert.is(gcmdInferenceHalf(corpus.datasets[0].id), gcmdInferenceHalf(corpus.datasets[0].id));
  // hosts learned on the dev half (AIRS → AQUA, SeaWiFS → ORBVIEW-2: one platform in ≥ 90 % of the records listing
  // the instrument alone, MODIS none) add platforms on the test half for little precision
  lex.hosts = learnInstrumentHosts(corpus.datasets.filter((d) => gcmdInferenceHalf(d.id) === 'dev'));
  assert.is(lex.hosts.get('AIRS'), 'AQUA');
  assert.not.ok(lex.hosts.has('MODIS'));
  const hosted = Object.fromEntries(gcmdInferenceQuality(corpus.datasets, lex, undefined, 'test').map((x) => [x.field, x]));
  assert.is(lex.hosts.get('SEAWIFS'), 'ORBVIEW-2');
  assert.ok(hosted.platforms.recall >= halves[1].platforms.recall + 0.01 && hosted.platforms.precision >= halves[1].platforms.precision - 0.01, JSON.stringify([hosted.platforms, halves[1].platforms]));
  // names of product families learned on the dev half (GOZCARDS → MLS …; measured 2026-12-05 with this lexicon, test
  // half: instruments .958 / .840, platforms .950 / .703 against the hosts' .951 / .696)
  lex.families = learnFamilyNames(corpus.datasets.filter((d) => gcmdInferenceHalf(d.id) === 'dev'));
  const familied = Object.fromEntries(gcmdInferenceQuality(corpus.datasets, lex, undefined, 'test').map((x) => [x.field, x]));
  assert.ok(familied.instruments.precision >= 0.95 && familied.instruments.recall >= 0.8, JSON.stringify(familied.instruments));
  assert.ok(familied.platforms.precision >= 0.945 && familied.platforms.recall >= hosted.platforms.recall + 0.005, JSON.stringify([familied.platforms, hosted.platforms]));
  // the abstract where the title and short name name no platform or instrument (rules made on the dev half; measured
  // 2026-12-05, dev: platforms .967 / .736 → .960 / .800, instruments .958 / .834 → .951 / .893; test, reported:
  // platforms .950 / .712 → .932 / .758, instruments .958 / .840 → .949 / .869)
  const read = (sources?: Parameters<typeof gcmdInferenceQuality>[2]) => Object.fromEntries(gcmdInferenceQuality(corpus.datasets, lex, sources, 'dev').map((x) => [x.field, x]));
  const [titled, fellBack] = [read(), read(['title', 'short-name', 'abstract-fallback'])];
  assert.ok(fellBack.platforms.recall >= titled.platforms.recall + 0.05 && fellBack.platforms.precision >= 0.955, JSON.stringify([fellBack.platforms, titled.platforms]));
  assert.ok(fellBack.instruments.recall >= titled.instruments.recall + 0.04 && fellBack.instruments.precision >= 0.945, JSON.stringify([fellBack.instruments, titled.instruments]));
  assert.equal(fellBack.projects, titled.projects, 'projects are not read from the abstract');
  // providers' habits learned on the dev half (measured 2026-12-05, test half: projects .778 / .648 → .899 / .638,
  // platforms .950 → .959, instruments .958 → .960 precision, recall unchanged)
  lex.unlisted = learnProviderUnlisted(corpus.datasets.filter((d) => gcmdInferenceHalf(d.id) === 'dev'), lex);
  const habits = Object.fromEntries(gcmdInferenceQuality(corpus.datasets, lex, undefined, 'test').map((x) => [x.field, x]));
  assert.ok(habits.projects.precision >= familied.projects.precision + 0.08 && habits.projects.recall >= familied.projects.recall - 0.015, JSON.stringify([habits.projects, familied.projects]));
  assert.ok(habits.platforms.precision >= familied.platforms.precision && habits.platforms.recall === familied.platforms.recall, JSON.stringify([habits.platforms, familied.platforms]));
  // projects CMR lists after words of the title at the record's provider, learned on the dev half without plain words,
  // then the habits (measured 2026-12-05, test half: projects .899 / .638 → .890 / .815; corpus-wide cues with plain
  // words were .870 / .786; platforms and instruments untouched; 2026-12-06, habits learned from one record on:
  // .931 / .638 → .913 / .814)
  lex.cues = learnTitleCues(corpus.datasets.filter((d) => gcmdInferenceHalf(d.id) === 'dev'), { plainWords: plainWords(corpus.datasets.map((d) => d.abstract)) });
  lex.unlisted = learnProviderUnlisted(corpus.datasets.filter((d) => gcmdInferenceHalf(d.id) === 'dev'), lex);
  const cued = Object.fromEntries(gcmdInferenceQuality(corpus.datasets, lex, undefined, 'test').map((x) => [x.field, x]));
  assert.ok(cued.projects.recall >= habits.projects.recall + 0.15 && cued.projects.precision >= habits.projects.precision - 0.02, JSON.stringify([cued.projects, habits.projects]));
  assert.equal([cued.platforms, cued.instruments], [habits.platforms, habits.instruments]);
  // an empty field filled from the nearest records by short-name prefix at the provider, learned on the dev half
  lex.neighbours = learnShortNameNeighbours(corpus.datasets.filter((d) => gcmdInferenceHalf(d.id) === 'dev'));
  const neighboured = Object.fromEntries(gcmdInferenceQuality(corpus.datasets, lex, undefined, 'test').map((x) => [x.field, x]));
  // (measured 2026-12-06 with this lexicon, test half: platforms .959 / .705 → .941 / .787 — recall for precision —,
  // instruments .960 / .840 → .955 / .877; with the habits learned from one record on, .964 / .705 → .945 / .790 and
  // .969 / .836 → .964 / .875)
  assert.ok(neighboured.platforms.recall >= cued.platforms.recall + 0.07 && neighboured.platforms.precision >= cued.platforms.precision - 0.025, JSON.stringify([neighboured.platforms, cued.platforms]));
  assert.ok(neighboured.instruments.recall >= cued.instruments.recall + 0.03 && neighboured.instruments.precision >= 0.95, JSON.stringify([neighboured.instruments, cued.instruments]));
  // … and the neighbours' veto took out the projects none of the nearest neighbours lists (measured 2026-12-06, test
  // half: projects .913 / .814 → .938 / .815)
  assert.ok(neighboured.projects.precision >= cued.projects.precision + 0.015 && neighboured.projects.recall >= cued.projects.recall - 0.01, JSON.stringify([neighboured.projects, cued.projects]));
  console.log(`  projects ${cued.projects.precision.toFixed(3)} / ${cued.projects.recall.toFixed(3)} → ${neighboured.projects.precision.toFixed(3)} / ${neighboured.projects.recall.toFixed(3)}`);
  console.log(`  short-name neighbours learned on dev, test half: platforms ${cued.platforms.precision.toFixed(3)} / ${cued.platforms.recall.toFixed(3)} → ${neighboured.platforms.precision.toFixed(3)} / ${neighboured.platforms.recall.toFixed(3)}, instruments ${cued.instruments.precision.toFixed(3)} / ${cued.instruments.recall.toFixed(3)} → ${neighboured.instruments.precision.toFixed(3)} / ${neighboured.instruments.recall.toFixed(3)}`);
  lex.neighbours = new Map();
  console.log(`  families learned on dev, test half: instruments ${familied.instruments.precision.toFixed(3)} / ${familied.instruments.recall.toFixed(3)}, platforms ${familied.platforms.precision.toFixed(3)} / ${familied.platforms.recall.toFixed(3)}`);
  lex.families = new Map();
  lex.hosts = new Map();
  // plain words of the abstracts keep "Soil", "Vegetation" and "Climate" (GCMD projects) from matching as words
  const worded = Object.fromEntries(gcmdInferenceQuality(corpus.datasets, buildGcmdLexicon(undefined, undefined, { plainWords: plainWords(corpus.datasets.map((d) => d.abstract)) })).map((x) => [x.field, x]));
  assert.ok(worded.projects.precision > by.projects.precision + 0.02, JSON.stringify([worded.projects, by.projects]));
  assert.equal(worded.platforms, by.platforms);
  // the abstract adds recall and costs precision
  const withAbstract = Object.fromEntries(gcmdInferenceQuality(corpus.datasets, lex, ['title', 'short-name', 'abstract']).map((x) => [x.field, x]));
  assert.ok(withAbstract.instruments.recall > by.instruments.recall && withAbstract.instruments.precision < by.instruments.precision);
});

test('issue 38\'s bar on the test half: the corpus\'s reading (title and short name) with all it learns from the dev half', () => {
  const corpus = loadSnapshot();
  const dev = corpus.datasets.filter((d) => gcmdInferenceHalf(d.id) === 'dev');
  const words = plainWords(corpus.datasets.map((d) => d.abstract));
  const lex = learnedGcmdLexicon(dev, { plainWords: words, titleCues: { plainWords: words } });
  lex.unlisted = learnProviderUnlisted(dev, lex);
  // measured 2026-12-06 (bench/gcmd-inference.cjs, last rows): platforms .953 / .801, instruments .968 / .875, projects
  // .953 / .811 (platforms .947 until a platform after a foreign instrument stopped counting)
  for (const q of gcmdInferenceQuality(corpus.datasets, lex, ['title', 'short-name'], 'test')) {
    assert.ok(q.precision >= 0.95 && q.recall >= 0.8, `${q.field}: ${q.precision.toFixed(3)} / ${q.recall.toFixed(3)}`);
  }
});

test('platform series: families of like platforms, not programmes; a series is a platform name; the series of a record', () => {
  const sat = (shortName: string, series: string, longName = ''): [string, GcmdEntity] => [shortName.toUpperCase(), { shortName, longName, path: ['Earth Observation Satellites', series] }];
  const platforms = new Map([
    sat('SENTINEL-1A', 'SENTINEL-1'), sat('SENTINEL-1B', 'SENTINEL-1'),
    sat('NOAA-20', 'Joint Polar Satellite System (JPSS)'), sat('SUOMI-NPP', 'Joint Polar Satellite System (JPSS)'), sat('JPSS-2', 'Joint Polar Satellite System (JPSS)'), sat('JPSS-3', 'Joint Polar Satellite System (JPSS)'),
    sat('SMAP', 'NASA Decadal Survey'), sat('SWOT', 'NASA Decadal Survey'), // a programme: its members share no name
    sat('JERS-1', 'JERS'), // one member: no series
    sat('LANDSAT-8', 'LANDSAT'), sat('LANDSAT-9', 'LANDSAT'), sat('LANDSAT', 'LANDSAT'),
    ['SHIP', { shortName: 'SHIP', longName: '', path: ['Water-based Platforms', 'SHIPS'] }] as [string, GcmdEntity], // not satellites
  ]);
  const series = gcmdPlatformSeries(platforms);
  assert.equal([...series.keys()], ['JPSS', 'LANDSAT', 'SENTINEL-1']);
  assert.equal(series.get('JPSS'), { shortName: 'JPSS', longName: 'Joint Polar Satellite System', members: ['JPSS-2', 'JPSS-3', 'NOAA-20', 'SUOMI-NPP'] });
  assert.equal(series.get('LANDSAT')!.members, ['LANDSAT-8', 'LANDSAT-9'], 'the series itself is not its member');
  assert.is(platformSeriesOf(series).get('SENTINEL-1B'), 'SENTINEL-1');
  const lex = buildGcmdLexicon({ platforms, instruments: new Map() });
  // a text naming the series names the series (not a member); one naming a member, the member
  assert.equal(inferGcmdEntities(record('Sentinel-1 Interferograms (BETA)'), lex).platforms, ['SENTINEL-1']);
  assert.equal(inferGcmdEntities(record('OPERA backscatter from Sentinel-1A and Landsat 8'), lex).platforms, ['LANDSAT-8', 'SENTINEL-1A']);
  assert.equal(inferGcmdEntities(record('Joint Polar Satellite System products'), lex).platforms, ['JPSS']);
  assert.equal(inferGcmdEntities(record('NASA Decadal Survey missions'), lex).platforms, []);
  // JPSS-1 is NOAA-20 (renamed at launch)
  assert.equal(inferGcmdEntities(record('JPSS-1 ATMS Level 1B Brightness Temperature'), buildGcmdLexicon({ platforms, instruments: new Map([entity('ATMS')]) })).platforms, ['NOAA-20']);
  // an alias renames the GCMD name it shares a spelling with: JPSS-2 (GCMD 9.1.5) is NOAA-21 only, in JPSS-2's series
  const renamed = buildGcmdLexicon({ platforms, instruments: new Map([entity('CRIS')]) });
  assert.equal(inferGcmdEntities(record('JPSS-2 CrIS Level 1B Beta Full Spectral Resolution V3', 'SNDRJ2CrISL1B'), renamed).platforms, ['NOAA-21']);
  assert.is(renamed.seriesOf.get('NOAA-21'), renamed.seriesOf.get('JPSS-2'));
  assert.ok(renamed.seriesOf.get('NOAA-21'));
});

test('mission hosts are GCMD names; "along" another sensor is not the record\'s; a platform-and-instrument name is the instrument beside another platform', () => {
  const platforms = readGcmdPlatforms();
  const instruments = readGcmdInstruments();
  for (const [instrument, platform] of Object.entries(GCMD_INSTRUMENT_HOSTS)) {
    assert.ok(instruments.has(instrument), `${instrument} is a GCMD instrument`);
    assert.ok(platforms.has(platform), `${platform} (host of ${instrument}) is a GCMD platform`);
  }
  const lex = buildGcmdLexicon({ platforms, instruments });
  assert.equal(inferGcmdEntities(record('GEDI L2A Elevation and Height Metrics Data Global Footprint Level V002', 'GEDI02_A'), lex), { platforms: ['ISS'], instruments: ['GEDI'], projects: [] });
  assert.equal(buildGcmdLexicon({ platforms, instruments }, undefined, { missionHosts: false }).hosts.size, 0);
  // learned hosts fill in instruments the mission hosts do not name, and do not override them
  const learned = buildGcmdLexicon({ platforms, instruments }, undefined, { learnedHosts: new Map([['AIRS', 'AQUA'], ['GEDI', 'AQUA']]) });
  assert.is(learned.hosts.get('AIRS'), 'AQUA');
  assert.is(learned.hosts.get('GEDI'), 'ISS');
  const subset = inferGcmdEntities(record('MODIS/Aqua Calibrated Radiances 1km 5-Min 1B Wide Swath Subset along CloudSat V002'), lex);
  assert.ok(subset.platforms.includes('AQUA') && !subset.platforms.includes('CLOUDSAT'), subset.platforms.join());
  const icesat2 = inferGcmdEntities(record('ATLAS/ICESat-2 L3A Land Ice Height'), lex);
  assert.ok(icesat2.instruments.includes('ATLAS') && icesat2.platforms.includes('ICESAT-2') && !icesat2.platforms.includes('ATLAS'), JSON.stringify(icesat2));
  // a satellite inside a named analysis's name is not the record's platform; a mission's ground validation is not the
  // mission (platform or project); "VIC Land Surface Model" is VIC-LSM, not the generic LSM
  assert.equal(inferGcmdEntities(record('TRMM (TMPA) Precipitation L3 1 day 0.25 degree x 0.25 degree V7'), lex).platforms, ['TMPA']);
  const gv = inferGcmdEntities(record('TRMM Ground Validation Radar Site Rain Type Map L2 1 hour 2 km V7', 'TRMM_2A54'), lex);
  assert.not.ok(gv.platforms.includes('TRMM') || gv.projects.includes('TRMM'), JSON.stringify(gv));
  assert.ok(inferGcmdEntities(record('TRMM Precipitation Radar L2A'), lex).platforms.includes('TRMM'));
  assert.equal(inferGcmdEntities(record('NLDAS VIC Land Surface Model L4 Hourly 0.125 x 0.125 degree V002'), lex).platforms, ['VIC-LSM']);
  // "VIIRS/NPP" names the satellite, not GCMD's Net Primary Productivity project; that project's long name still does
  const withProjects = buildGcmdLexicon();
  assert.not.ok(inferGcmdEntities(record('VIIRS/NPP Surface Reflectance 8-Day L3 Global 500m SIN Grid V001'), withProjects).projects.includes('NPP'));
  assert.ok(inferGcmdEntities(record('Global Patterns in Net Primary Productivity'), withProjects).projects.includes('NPP'));
  assert.equal(inferGcmdEntities(record('Aquarius CAP Level 2 Sea Surface Salinity, Wind Speed & Direction Data V5.0'), withProjects), { platforms: ['AQUARIUS_SAC-D'], instruments: [], projects: ['AQUARIUS SAC-D'] });
  const nexrad = inferGcmdEntities(record('KBGM NEXRAD IMPACTS V1'), withProjects);
  assert.ok(nexrad.instruments.includes('NEXRAD') && !nexrad.projects.includes('NEXRAD'), JSON.stringify(nexrad));
  // an instrument GCMD names after its platform is the instrument on that platform, as CMR lists them
  const hrir = inferGcmdEntities(record('HRIR/Nimbus-1 Images of Nighttime Brightness Temperature on 70 mm Film V001'), lex);
  assert.ok(hrir.instruments.includes('HRIR') && !hrir.instruments.some((i) => i.includes(' ')) && hrir.platforms.includes('NIMBUS-1'), JSON.stringify(hrir));
  // aliases: Landsat's short forms (never the levels L0 … L4), NPP's spellings, compared by letters and digits
  assert.equal(inferGcmdEntities(record('Landsat Surface Reflectance - L8 OLI/TIRS'), lex).platforms, ['LANDSAT-8']);
  assert.equal(inferGcmdEntities(record('Ozone L4 monthly grid'), lex).platforms, []);
  assert.is(gcmdAliasOf('platforms', 'l8'), 'LANDSAT-8');
  assert.is(gcmdAliasOf('platforms', 's npp'), 'SUOMI-NPP');
  assert.is(gcmdAliasOf('platforms', 'L4'), null);
  assert.is(gcmdAliasOf('instruments', 'L8'), null);
  // a platform (or a series of like platforms) with one instrument brings it: QuikSCAT's SeaWinds, Sentinel-1's C-SAR
  const series = gcmdPlatformSeries(platforms);
  for (const [platform, instrument] of Object.entries(GCMD_PLATFORM_PAYLOADS)) {
    assert.ok((platforms.has(platform) || series.has(platform)) && instruments.has(instrument), `${platform} → ${instrument} are GCMD names`);
  }
  assert.ok(inferGcmdEntities(record('QuikSCAT Level 2B Ocean Wind Vectors in 12.5km Slice Composites Version 4.1'), lex).instruments.includes('SEAWINDS'));
  assert.equal(inferGcmdEntities(record('Sentinel-1B Dual-pol ground projected high and full resolution images', 'SENTINEL-1B_DUAL_POL_GRD_HIGH_RES'), lex).instruments, ['SENTINEL-1 C-SAR']);
  assert.ok(inferGcmdEntities(record('Sentinel-1 Interferograms - Coherence (BETA)'), lex).instruments.includes('SENTINEL-1 C-SAR'), 'the series too');
  assert.equal(buildGcmdLexicon({ platforms, instruments }, undefined, { missionHosts: false }).payloads.size, 0);
  // in a title all in capitals, a platform or instrument short name that is a plain word of the corpus is a word
  const worded = buildGcmdLexicon({ platforms, instruments }, undefined, { plainWords: new Set(['wind', 'ocean', 'trace']) });
  assert.not.ok(inferGcmdEntities(record('RSS SSM/I OCEAN WIND SPEED DAILY GRIDS'), worded).platforms.includes('WIND'));
  assert.ok(inferGcmdEntities(record('Magnetic field from the WIND spacecraft'), worded).platforms.includes('WIND'));
  // … nor is such a word written in mixed case to spell another acronym, nor one a hyphen joins to a campaign's letter
  assert.equal(inferGcmdEntities(record('CPEX-AW DAWN Doppler Aerosol WiNd Lidar'), worded).platforms, []);
  assert.equal(inferGcmdEntities(record('CPEX-AW DAWN Doppler Aerosol WiNd Lidar'), lex).platforms, ['WIND'], 'a word only where the corpus says so');
  assert.equal(inferGcmdEntities(record('TRACE-P DC-8 In-Situ Trace Gas Data'), worded).platforms, ['DC-8']);
  assert.equal(inferGcmdEntities(record('TRACE-P DC-8 In-Situ Trace Gas Data'), lex).platforms, ['DC-8', 'TRACE']);
  assert.ok(inferGcmdEntities(record('Coronal loops imaged by TRACE'), worded).platforms.includes('TRACE'));
  // a platform inside a longer project name is the project's, unless that name names another platform or instrument too
  const aceAsia = inferGcmdEntities(record('Aerosol Characterization Experiment (ACE) - Asia'), withProjects);
  assert.equal([aceAsia.platforms, aceAsia.projects.includes('ACE-ASIA')], [[], true]);
  assert.equal(inferGcmdEntities(record('Aerosol Characterization Experiment (ACE) - Asia'), lex).platforms, ['ACE'], 'without the project, the spacecraft');
  assert.ok(inferGcmdEntities(record('SAGE III/ISS L2 Solar Event Species Profiles (HDF5) V053'), withProjects).platforms.includes('ISS'));
  // an airborne stand-in for a mission, or its precursor, is not the spacecraft's; an aircraft before "Airborne" is the platform
  assert.equal(inferGcmdEntities(record('MASTER: HyspIRI Airborne Campaign, California, Fall 2013'), lex).platforms, []);
  assert.equal(inferGcmdEntities(record('STAQS JSC GV GEOstationary Coastal and Air Pollution Events (GEO-CAPE) Airborne Simulator Data'), lex).platforms, []);
  assert.equal(inferGcmdEntities(record('Rongowai-CYGNSS Airborne Level 1 Science Data Record Version 1.0'), lex), { platforms: [], instruments: [], projects: [] });
  assert.equal(inferGcmdEntities(record('Pre SWOT Hydrology GRRATS Daily River Heights and Storage Version 2'), lex).platforms, []);
  assert.equal(inferGcmdEntities(record('SWOT Level 2 KaRIn Low Rate Sea Surface Height Data Product'), lex).platforms, ['SWOT']);
  assert.equal(inferGcmdEntities(record('CAMEX-3 DC-8 Airborne Multichannel Microwave Radiometer (AMMR) V1'), lex).platforms, ['DC-8']);
  // a long name that is a generic term does not name the platform: GNSS is every constellation, not GLONASS
  const gnss = inferGcmdEntities(record('Ground-Based Global Navigation Satellite System Data (30-second sampling, 24 hour files) from NASA CDDIS'), lex);
  assert.equal([gnss.platforms, gnss.instruments.includes('GLONASS')], [[], false]);
  assert.equal(inferGcmdEntities(record('Daily 30-second Hatanaka-compressed GLONASS (GLObal NAvigation Satellite System) observation data'), lex).platforms, ['GLONASS']);
  assert.equal(inferGcmdEntities(record('CYGNSS Level 2 Science Data Record'), lex).platforms, ['CYGNSS'], 'a specific long name still reads');
  assert.equal(inferGcmdEntities(record('Sentinel-6A MF Jason-CS L2 P4 Altimeter Low Resolution (LR) NTC Ocean Surface Topography'), lex).platforms, ['SENTINEL-6'], 'not Jason the ROV');
  // obscure instruments whose acronyms titles use for other things match by long name only
  assert.equal(inferGcmdEntities(record('NOAA-21 VIIRS Global Mapped Remote-Sensing Reflectance (RRS) Data, version R2022.0'), lex).instruments, ['VIIRS']);
  assert.equal(inferGcmdEntities(record('CSR TELLUS GRACE Level-3 Monthly Land Water-Equivalent-Thickness Surface Mass Anomaly'), lex).instruments, []);
  assert.equal(inferGcmdEntities(record('2020 Environmental Performance Index (EPI)'), lex).instruments, []);
  assert.ok(inferGcmdEntities(record('Ground radiometry from a Reflected Radiation Sensor'), lex).instruments.includes('RRS'));
  // "INSTRUMENT/PLATFORM": the platform after an instrument's slash in any case, and TOMS's short forms there only
  assert.equal(inferGcmdEntities(record('WindSat/Coriolis surface soil moisture (LPRM) L2 V001'), lex).platforms, ['CORIOLIS']);
  assert.equal(inferGcmdEntities(record('POLDER/Parasol L2 Radiation Budget subset along CloudSat track V001'), lex).platforms, ['PARASOL']);
  assert.equal(inferGcmdEntities(record('TOMS/N7 Near UV Aerosol Index and LER 1-Orbit L2 50x50 km'), lex).platforms, ['NIMBUS-7']);
  assert.equal(inferGcmdEntities(record('TOMS/EP Near UV Aerosol Index and LER 1-Orbit L2 40x40km'), lex).platforms, ['EP-TOMS']);
  assert.equal(inferGcmdEntities(record('Coriolis effect on N7 sea level anomalies'), lex).platforms, [], 'not without an instrument and its slash');
  const oco2 = inferGcmdEntities(record('OCO-2 Level 2 bias-corrected XCO2'), lex);
  assert.ok(oco2.platforms.includes('OCO-2') && oco2.instruments.includes('OCO-2'), 'alone, it stays both');
});

test('inferCorpusGcmd stores the inferred names with every record, and the series of CMR\'s platforms or the inferred ones', () => {
  const rec = (id: string, longName: string, platforms: string[] = []): DatasetRecord => ({
    id, shortName: null, longName, abstract: '', doi: null, daac: 'X', publisher: null, temporalStart: null, temporalEnd: null,
    keywords: [], platforms, instruments: [], projects: [], processingLevel: null, landingPage: null, shortNameSource: null, catalogRecordComplete: true, sources: [],
  });
  const dir = gcmdDirFor(resolveDataDir(undefined, { sample: true }));
  assert.is(dir, resolveDataDir(), 'the sample reads the GCMD files of the folder above it');
  const datasets = [rec('C1-X', 'Sentinel-1A dual-pol GRD'), rec('C2-X', 'Level 1B radiances', ['NOAA-20']), rec('C3-X', 'Sea ice concentration')];
  inferCorpusGcmd(datasets, dir!);
  assert.equal(datasets[0].inferred, { platforms: ['SENTINEL-1A'], instruments: ['SENTINEL-1 C-SAR'], projects: [], series: ['SENTINEL-1'] });
  assert.equal(datasets[1].inferred!.series, ['JPSS'], 'from CMR\'s platform');
  assert.equal(datasets[2].inferred, { platforms: [], instruments: [], projects: [], series: [] });
  // what the corpus learns from its records with CMR values: title cues and providers' habits (both on by default)
  const learning = () => [
    ...[1, 2, 3].map((i) => ({ ...rec(`C${i}0-X`, `DORIS station product ${i}`), projects: ['IDS'] })),
    ...[4, 5, 6].map((i) => ({ ...rec(`C${i}0-L`, `CERES fluxes Aqua edition ${i}`), daac: 'LARC_ASDC', projects: ['CERES'] })),
    rec('C70-X', 'DORIS orbit residuals'), { ...rec('C80-L', 'CERES radiances Aqua'), daac: 'LARC_ASDC' },
  ];
  const learned = learning();
  inferCorpusGcmd(learned, dir!);
  assert.ok(learned[6].inferred!.projects.includes('IDS'), JSON.stringify(learned[6].inferred));
  assert.not.ok(learned[7].inferred!.projects.includes('AQUA'), JSON.stringify(learned[7].inferred));
  const unlearned = learning();
  inferCorpusGcmd(unlearned, dir!, { titleCues: false, providerUnlisted: false });
  assert.not.ok(unlearned[6].inferred!.projects.includes('IDS'), JSON.stringify(unlearned[6].inferred));
  assert.ok(unlearned[7].inferred!.projects.includes('AQUA'), JSON.stringify(unlearned[7].inferred));
  // the loaded snapshot carries them
  const sample = loadSnapshot({ sample: true });
  assert.ok(sample.datasets.every((d) => d.inferred) && sample.datasets.filter((d) => d.inferred!.platforms.length).length > 50);
});

test.run();
