// The zones zone transfer reads when a catalog is served: the catalog (answer/catalog-zone.ts)
// beside the zones of the records (answer/zone-records.ts), behind transfer's one ZoneSource.
import type { CatalogZone } from './answer/catalog-zone.ts';
import type { Zone } from './answer/zones.ts';
import type { ZoneSource } from './transfer/zone-source.ts';

export function withCatalog(records: ZoneSource<Zone>, catalog: CatalogZone): ZoneSource<Zone> {
  const isCatalog = (zone: Zone) => zone === catalog.zone;
  return {
    apex: (name) => (name === catalog.zone.name ? catalog.zone : records.apex(name)),
    serial: (zone) => (isCatalog(zone) ? catalog.serial : records.serial(zone)),
    soa: (zone, serial) => (isCatalog(zone) ? catalog.soa() : records.soa(zone, serial)),
    records: async (zone) =>
      isCatalog(zone) ? { serial: catalog.serial, records: [...catalog.records] } : records.records(zone),
    // A secondary's older serial is of an earlier process, whose members are not known here.
    changesSince: async (zone, from) =>
      isCatalog(zone)
        ? { kind: 'whole', why: 'the catalog is made at start: no earlier version is kept' }
        : records.changesSince(zone, from),
  };
}
