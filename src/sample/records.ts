// The information records the sample server publishes (spec 000 field names, exactly).
export interface InformationRecord {
  FirstName: string;
  LastName: string;
  DOB: string;
  Residence: string;
  Email: string;
  Owns_Cars: string[];
}

export const informationRecords: readonly InformationRecord[] = Object.freeze([
  {
    FirstName: "John",
    LastName: "Mortensen",
    DOB: "October 21",
    Residence: "San Diego",
    Email: "jmortensen@powayusd.com",
    Owns_Cars: ["2015-Fusion", "2011-Ranger", "2003-Excursion", "1997-F350", "1969-Cadillac", "2015-Kuboto-3301"],
  },
  {
    FirstName: "Shane",
    LastName: "Lopez",
    DOB: "February 27",
    Residence: "San Diego",
    Email: "slopez@powayusd.com",
    Owns_Cars: ["2021-Insight"],
  },
]);
