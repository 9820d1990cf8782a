/**
 * The GCMD names as data that the lexicon (gcmd-lexicon.ts) and the reading (gcmd-read.ts) use beside GCMD's own files:
 * the fields inferred, the short names read only by their long names, the aliases, the mission hosts and payloads, the
 * notations of instrument/platform pairs and DMSP flights, and the instrument suites.
 */
export type GcmdInferredField = 'platforms' | 'instruments' | 'projects';
export const GCMD_INFERRED_FIELDS: readonly GcmdInferredField[] = ['platforms', 'instruments', 'projects'];

/**
 * GCMD short names that a record's text uses for something else, never matched by their short name: generic words
 * (RADAR, AIRCRAFT), and acronyms that dataset titles use for other things — SIPS (GCMD: Smart Instrument Points;
 * titles: a Science Investigator-led Processing System), SWIR and VIS (spectral bands, not those radiometers), DOAS (a
 * retrieval method, not a spectrometer), CPR (GCMD: the Continuous Plankton Recorder; titles: CloudSat's Cloud Profiling
 * Radar, GCMD's CLOUDSAT-CPR). Their long names still match.
 */
export const AMBIGUOUS_SHORT_NAMES = new Set([
  'NOT APPLICABLE', 'NOT PROVIDED', 'OTHER', 'MODELS', 'MODEL', 'COMPUTER', 'CAMERAS', 'RADAR', 'LIDAR', 'AIRCRAFT', 'SHIPS', 'BUOYS', 'SATELLITES',
  'SPACE STATIONS/CREWED SPACECRAFT', 'SIPS', 'SWIR', 'VIS', 'DOAS', 'CPR',
  // the GEOS satellite series (Geodetic Earth Orbiting Satellite); NASA titles mean GMAO's GEOS model ("GEOS-Carb", "GEOS-5")
  'GEOS',
  // cameras and a spectrometer of GCMD whose acronyms titles use for other things: GIS (GeoEye Imaging System; titles:
  // "GIS Layers"), PAN (IRS's Panchromatic Camera; titles: ETM+'s panchromatic band, peroxyacetyl nitrate), IMG (ADEOS's
  // greenhouse-gas interferometer; titles: CrIS's collocated VIIRS imagery)
  'GIS', 'PAN', 'IMG',
]);

/**
 * GCMD short names that titles use for something else in one field only, never matched by their short name there
 * (the other fields and their long names still match):
 * - instruments: ISS (the Integrated Sounding System; titles: the International Space Station) and AES (the Atmospheric
 *   Emission Spectrometer; titles: Canada's Atmospheric Environment Service) are platforms only; and in-situ or obscure
 *   instruments whose acronyms titles use for other things: RRS (a Reflected Radiation Sensor; titles: ocean colour's
 *   "Remote-Sensing Reflectance (RRS)"), STC (a salinity-temperature-conductivity probe; titles: Sentinel-6's "Short
 *   Time Critical" latency), CSR (a Compressive Strength Recorder; titles: Texas's Center for Space Research, "CSR
 *   TELLUS GRACE"), WISE (a Warm Ice Sounding Explorer; titles: the soil database "ISRIC-WISE"), STS (a Step Sampler;
 *   titles: Space Shuttle flights, "STS-59"), EPI (an Energy Particle Analyzer; titles: the Environmental Performance
 *   Index, a GCMD project); CMR lists none of them on the dev half;
 * - projects: NPP (GCMD: the Net Primary Productivity project; titles: the Suomi NPP satellite, "VIIRS/NPP", or the
 *   variable; reading it as the programme NPP-JPSS, as CMR files most VIIRS/NPP products, was tried on the dev half:
 *   recall +.011, precision no better, for the variable's "(NPP)" turned into the programme), and GNSS, NEXRAD, DMSP
 *   (GCMD projects, but a title names with them the navigation systems, the radar network, the satellites; on the dev
 *   half CMR files none of them as the project of a record whose title names them: 0 of 72, 0 of 34, 0 of 23).
 */
export const AMBIGUOUS_IN_FIELD: Readonly<Partial<Record<GcmdInferredField, ReadonlySet<string>>>> = {
  instruments: new Set(['ISS', 'AES', 'RRS', 'STC', 'CSR', 'WISE', 'STS', 'EPI']),
  projects: new Set(['NPP', 'GNSS', 'NEXRAD', 'DMSP']),
};

/**
 * GCMD names whose long name is a generic term, matched by their short name only (in every field): GLONASS's (the
 * platform's and the instrument's) "GLObal NAvigation Satellite System" is what GNSS stands for (CDDIS's 130 "Global Navigation Satellite System (GNSS) …" records are of
 * every constellation), and Envisat's "Environmental Satellite" ends NOAA's "… Operational Environmental Satellite
 * System" names.
 */
export const GENERIC_LONG_NAMES: ReadonlySet<string> = new Set(['GLONASS', 'ENVISAT']);

/**
 * Names GCMD does not list that records use for a GCMD entity (field, alias as written or folded, GCMD short name):
 * the NPP satellite's many spellings and TOMS's Earth Probe. An alias with a digit or separator, or of two or more
 * words, matches folded; a single plain word as written.
 */
export const GCMD_ALIASES: readonly { field: GcmdInferredField; alias: string; shortName: string }[] = [
  { field: 'platforms', alias: 'NPP', shortName: 'SUOMI-NPP' },
  { field: 'platforms', alias: 'SNPP', shortName: 'SUOMI-NPP' },
  { field: 'platforms', alias: 'S-NPP', shortName: 'SUOMI-NPP' },
  { field: 'platforms', alias: 'Earth-Probe', shortName: 'EP-TOMS' },
  { field: 'platforms', alias: 'Earth Probe', shortName: 'EP-TOMS' },
  // JPSS-1 and JPSS-2 were renamed NOAA-20 and NOAA-21 at launch; GES DISC titles keep the old names
  { field: 'platforms', alias: 'JPSS-1', shortName: 'NOAA-20' },
  { field: 'platforms', alias: 'JPSS-2', shortName: 'NOAA-21' },
  // Landsat's short forms ("Landsat Surface Reflectance - L8 OLI/TIRS"); L0 … L4 are processing levels, never Landsats
  { field: 'platforms', alias: 'L5', shortName: 'LANDSAT-5' },
  { field: 'platforms', alias: 'L7', shortName: 'LANDSAT-7' },
  { field: 'platforms', alias: 'L8', shortName: 'LANDSAT-8' },
  { field: 'platforms', alias: 'L9', shortName: 'LANDSAT-9' },
  // the Aquarius mission flew on SAC-D: GCMD names the satellite Aquarius_SAC-D and the project AQUARIUS SAC-D, titles
  // say "Aquarius" (on the dev half 82 of the 86 such records list the project AQUARIUS SAC-D, none AQUARIUS alone)
  { field: 'platforms', alias: 'Aquarius', shortName: 'AQUARIUS_SAC-D' },
  { field: 'projects', alias: 'Aquarius', shortName: 'AQUARIUS SAC-D' },
  // GCMD (9.1.5) names the mission SENTINEL-6; PO.DAAC's titles name its first satellite "Sentinel-6A MF Jason-CS" (Jason
  // Continuity of Service), whose "Jason" is not GCMD's Jason (an ROV)
  { field: 'platforms', alias: 'Sentinel-6A', shortName: 'SENTINEL-6' },
  { field: 'platforms', alias: 'Sentinel-6B', shortName: 'SENTINEL-6' },
  { field: 'platforms', alias: 'Jason-CS', shortName: 'SENTINEL-6' },
  // GCMD's long name is "Variable Infiltration Capacity (VIC) Land Surface Model"; titles write "VIC Land Surface Model"
  { field: 'platforms', alias: 'VIC Land Surface Model', shortName: 'VIC-LSM' },
];

/**
 * The GCMD short name an alias of `GCMD_ALIASES` stands for in `field` (compared by letters and digits only:
 * "S-NPP", "snpp"; "L8"), or null.
 */
export function gcmdAliasOf(field: GcmdInferredField, name: string): string | null {
  const key = name.toLowerCase().replace(/[^a-z0-9]+/g, '');
  return GCMD_ALIASES.find((a) => a.field === field && a.alias.toLowerCase().replace(/[^a-z0-9]+/g, '') === key)?.shortName ?? null;
}

/**
 * Instruments flown on one platform only (by mission design; GCMD short names on both sides), so that a record naming
 * only its instrument ("GEDI L2A Elevation and Height Metrics") gets its platform too. Instruments flown on several
 * platforms (MODIS, VIIRS, CERES, AVHRR, SeaWinds) are not here; nor are names GCMD gives two instruments (EPIC, ATLAS).
 * `learnInstrumentHosts` adds the hosts that CMR's own records show.
 */
export const GCMD_INSTRUMENT_HOSTS: Readonly<Record<string, string>> = {
  GEDI: 'ISS', ECOSTRESS: 'ISS', CATS: 'ISS',
  CALIOP: 'CALIPSO', GLAS: 'ICESAT',
  ASTER: 'TERRA', MISR: 'TERRA', MOPITT: 'TERRA',
  'AMSR-E': 'AQUA', AMSR2: 'GCOM-W1',
  TES: 'AURA', HIRDLS: 'AURA',
  TROPOMI: 'SENTINEL-5P',
  PALSAR: 'ALOS', 'PALSAR-2': 'ALOS-2',
  GMI: 'GPM', DPR: 'GPM', TMI: 'TRMM',
  SCIAMACHY: 'ENVISAT', MIPAS: 'ENVISAT', MERIS: 'ENVISAT', AATSR: 'ENVISAT',
  OSIRIS: 'ODIN', 'ACE-FTS': 'SCISAT-1/ACE', MAESTRO: 'SCISAT-1/ACE',
  MIRAS: 'SMOS', 'ETM+': 'LANDSAT-7',
};

/**
 * "INSTRUMENT/PLATFORM", the DAACs' product naming ("MODIS/Aqua", "WindSat/Coriolis", "POLDER/Parasol", "TOMS/N7"):
 * after a GCMD instrument and a slash comes its platform, read in any case (a mixed-case "Coriolis" or "Parasol" does
 * not match GCMD's all-capital short name elsewhere) and by the short forms GES DISC's TOMS products use there.
 */
export const GCMD_SLASH_NOTATION = /([A-Za-z][A-Za-z0-9-]*)\/([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)?)/g;
export const GCMD_SLASH_PLATFORM_FORMS: Readonly<Record<string, string>> = { N7: 'NIMBUS-7', EP: 'EP-TOMS', M3: 'METEOR-3' };

/** DMSP's sensors: a record naming one beside a flight number ("SSM/I … F11") is on that flight's satellite. */
export const GCMD_DMSP_INSTRUMENTS: readonly string[] = ['SSM/I', 'SSMIS', 'SSM/T', 'SSM/T-2', 'OLS'];

/** GCMD's name of DMSP flight `n` (F1–F5 block 5D-1; F6–F15 5D-2, as CMR lists F15; F16–F19 5D-3); null outside 1–19. */
export function dmspFlightName(n: number): string | null {
  return Number.isInteger(n) && n >= 1 && n <= 19 ? `DMSP ${n <= 5 ? '5D-1' : n <= 15 ? '5D-2' : '5D-3'}/F${n}` : null;
}

/**
 * Platforms that carry one Earth-observing instrument (by mission design; GCMD short names), so that a record naming
 * only the platform ("QuikSCAT Level 2B Ocean Wind Vectors") gets the instrument too (SeaWinds). The reverse of
 * `GCMD_INSTRUMENT_HOSTS`, for the missions whose records name the platform rather than the instrument. ICESat-2's
 * ATLAS is left out: GCMD gives two instruments that name.
 */
export const GCMD_PLATFORM_PAYLOADS: Readonly<Record<string, string>> = {
  QUIKSCAT: 'SEAWINDS', ICESAT: 'GLAS', 'ORBVIEW-2': 'SEAWIFS', 'GCOM-W1': 'AMSR2', 'SENTINEL-5P': 'TROPOMI', SMOS: 'MIRAS', CYGNSS: 'DDMI',
  'SENTINEL-1': 'SENTINEL-1 C-SAR', 'SENTINEL-1A': 'SENTINEL-1 C-SAR', 'SENTINEL-1B': 'SENTINEL-1 C-SAR',
};

/**
 * Instrument suites: a record of the suite is a record of its members too, named as CMR names them (the members, or
 * the suite and its members).
 */
export const GCMD_INSTRUMENT_SUITES: Readonly<Record<string, { members: readonly string[]; listedAs: 'members' | 'suite and members' }>> = {
  // Cross-track Infrared and Advanced Technology Microwave Sounders: CMR lists CrIS and ATMS, not CrIMSS
  CRIMSS: { members: ['CRIS', 'ATMS'], listedAs: 'members' },
  // TIROS Operational Vertical Sounder: CMR lists TOVS with HIRS/2 and MSU (its SSU is not in the sounding products)
  TOVS: { members: ['HIRS/2', 'MSU'], listedAs: 'suite and members' },
};
